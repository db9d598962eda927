import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { starterConfig } from '../../../src/config/starter.js';
import type { Config } from '../../../src/config/types.js';
import { timingInputFromConfig, timingModel } from '../../../src/timing/index.js';
import { writeConfig } from './temp-config.js';

const example = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../infra/deploy.example.yml',
);

/** the invariants that fail, warnings included: a file people copy must pass `deploy check --strict` */
function broken(config: Config): string[] {
  const settings = config.balancers[0]?.healthCheck;
  if (!settings) throw new Error('the file declares no health-check settings');
  const { invariants } = timingModel(timingInputFromConfig(config, settings));
  return invariants.filter((i) => !i.ok).map((i) => i.message);
}

describe('the files people start from', () => {
  it('the starter that deploy init writes satisfies every timing invariant', async () => {
    const config = await loadConfig(await writeConfig(starterConfig), { env: {} });
    expect(broken(config)).toEqual([]);
  });

  it('the shipped example satisfies every timing invariant', async () => {
    const config = await loadConfig(example, { env: {} });
    expect(broken(config)).toEqual([]);
  });
});
