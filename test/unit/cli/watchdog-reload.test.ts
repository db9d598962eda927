import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWatchdog } from '../../../src/cli/commands/register-watchdog.js';
import { parseConfig } from '../../../src/config/parse.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { hostFixture } from '../../support/host-fixture.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

const exists = (file: string) =>
  stat(file).then(
    () => true,
    () => false,
  );

describe('deploy watchdog over several ticks of one process', () => {
  it('reads the host config again before each tick: a deploy setup between two ticks applies to the next', async () => {
    const h = await hostFixture(
      'watchdog: { every: 1s, failures_before_restart: 4, successes_before_healthy: 2, start_period: 1s, max_restarts: 2, restart_window: 10m }',
    );
    dir = h.dir;
    // setup republishes it with host.state elsewhere: where the second tick's counters must go
    const moved = path.join(h.dir, 'state-2');
    await mkdir(moved);
    const second = parseConfig(
      h.yaml.replace(`state: ${h.dir}/state,`, `state: ${moved},`),
      path.join(h.dir, 'deploy.yml'),
    );
    expect(second.host.state).toBe(moved);
    const file = path.join(h.dir, 't.json');
    await writeFile(file, toHostJson(h.config));

    // no release is live on this host: each tick says so and saves its counters in host.state
    const running = runWatchdog({ config: file, ticks: '2' });
    await expect
      .poll(() => exists(path.join(h.dir, 'state', 'watchdog.json')), { timeout: 10_000 })
      .toBe(true);
    await writeFile(`${file}.new`, toHostJson(second));
    await rename(`${file}.new`, file);
    await running;

    expect(await exists(path.join(moved, 'watchdog.json'))).toBe(true);
  }, 20_000);
});
