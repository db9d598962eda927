import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { plainConfig, plainEnv } from '../../../src/cli/connections.js';
import { loadConfig, loadConfigAndPlain } from '../../../src/config/load.js';

const example = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../infra/deploy.example.yml',
);

afterEach(() => vi.unstubAllEnvs());

describe('the config deploy setup writes to hosts', () => {
  it("ignores the operator's HANDOFF_* overrides: the cron line and host config agree", async () => {
    vi.stubEnv('HANDOFF_WATCHDOG_EVERY', '10s');
    const overridden = await loadConfig(example, { env: process.env });
    expect(overridden.watchdog.every).toBe(10_000);
    const plain = await plainConfig({ config: example });
    expect(plain.watchdog.every).not.toBe(10_000);
    expect(plain.watchdog.every).toBe((await loadConfig(example, { env: {} })).watchdog.every);
  });

  it('a rollout reads both from one parse, each the same as read alone', async () => {
    vi.stubEnv('HANDOFF_WATCHDOG_EVERY', '10s');
    const { config, plain } = await loadConfigAndPlain(example, { env: process.env }, plainEnv());
    expect(config).toEqual(await loadConfig(example, { env: process.env }));
    expect(plain).toEqual(await plainConfig({ config: example }));
    expect(config.watchdog.every).toBe(10_000);
    expect(plain.watchdog.every).not.toBe(10_000);
    expect(Object.isFrozen(config.watchdog) && Object.isFrozen(plain.watchdog)).toBe(true);
  });
});
