import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { readDrainMarker } from '../../../src/host/drain-marker.js';
import { publishRelease, switchRelease } from '../../../src/host/releases.js';
import { createRuntime } from '../../../src/host/runtime/create.js';
import { runtimeSettings } from '../../../src/host/runtime/runtime.js';
import { MemoryLog } from '../../../src/log.js';
import { tick } from '../../../src/watchdog/tick.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';

const WATCHDOG = `watchdog: { every: 1s, failures_before_restart: 4, successes_before_healthy: 2, start_period: 1s, max_restarts: 2, restart_window: 10m }`;

let host: HostFixture | undefined;
afterEach(async () => {
  if (host)
    await createRuntime(runtimeSettings(host.config), 'r1')
      .stop()
      .catch(() => undefined);
  host = undefined;
});

/** A host with r1 live (started or not) and a drain marker whose lease ran out a minute ago. */
async function leftDrained(options: { started: boolean; release?: string }) {
  const h = await hostFixture(WATCHDOG);
  await publishRelease(h.config.host.root, 'r1', { '.env': 'RELEASE=r1\n' });
  await switchRelease(h.config.host.root, 'r1');
  if (options.started) await createRuntime(runtimeSettings(h.config), 'r1').start();
  const past = Date.now() - 60_000;
  await writeFile(
    path.join(h.config.host.state, 'draining'),
    JSON.stringify({
      by: 'rollout r1 by ci',
      since: new Date(past).toISOString(),
      until: new Date(past + 1000).toISOString(),
      ...(options.release === undefined ? {} : { release: options.release }),
    }),
  );
  return h;
}

/** its service answers at all (a drained one may answer 503), within 10 s */
const answering = (h: HostFixture) =>
  expect
    .poll(
      () =>
        fetch(`http://127.0.0.1:${h.port}/health`)
          .then(() => true)
          .catch(() => false),
      { timeout: 10_000 },
    )
    .toBe(true);

const errors = (log: MemoryLog) =>
  log.events.filter((e) => e.level === 'error').map((e) => `${e.event}: ${e.message}`);

async function healLines(h: HostFixture): Promise<{ step: string; result: string }[]> {
  const text = await readFile(path.join(h.config.host.root, 'audit.jsonl'), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { step: string; result: string })
    .filter((e) => e.step.startsWith('watchdog.heal'))
    .map(({ step, result }) => ({ step, result }));
}

describe('the watchdog heals a host a dead rollout left drained', () => {
  it('undrains it once the live release passes successes_before_healthy checks', async () => {
    host = await leftDrained({ started: true, release: 'r2' });
    await answering(host);
    const log = new MemoryLog();
    const r = await tick(host.config, { clock: systemClock, log });
    expect(r.outcome).toBe('healed');
    expect((await readDrainMarker(host.config.host.state)).present).toBe(false);
    expect(errors(log)).toEqual([
      expect.stringMatching(
        /^watchdog.heal: the drain marker of a dead rollout \(rollout r1 by ci, release r2\) expired at .* and nobody holds the lock: r1 passes 2 checks in a row: undrained$/,
      ),
    ]);
    expect(await healLines(host)).toEqual([{ step: 'watchdog.heal undrain', result: 'ok' }]);
    // and then it is an ordinary host again
    expect((await tick(host.config, { clock: systemClock, log })).outcome).toBe('checked');
  });

  it('starts the release current names when it does not pass, and undrains only once it does', async () => {
    host = await leftDrained({ started: false, release: 'r2' });
    const log = new MemoryLog();
    const first = await tick(host.config, { clock: systemClock, log });
    expect(first.outcome).toBe('skipped-drain');
    expect((await readDrainMarker(host.config.host.state)).present).toBe(true);
    expect(errors(log)).toEqual([
      expect.stringMatching(
        /r1 fails its checks \(app\): started it; it is undrained once it passes$/,
      ),
    ]);
    await answering(host);
    const second = await tick(host.config, { clock: systemClock, log });
    expect(second.outcome).toBe('healed');
    expect((await readDrainMarker(host.config.host.state)).present).toBe(false);
    expect(await healLines(host)).toEqual([
      { step: 'watchdog.heal start', result: 'ok' },
      { step: 'watchdog.heal undrain', result: 'ok' },
    ]);
  });

  it('with drain.method deregister leaves a healthy host drained, said once: it cannot register the target', async () => {
    host = await leftDrained({ started: true, release: 'r2' });
    await answering(host);
    const config = {
      ...host.config,
      drain: { ...host.config.drain, method: 'deregister' as const },
    };
    const log = new MemoryLog();
    for (let n = 0; n < 2; n++)
      expect((await tick(config, { clock: systemClock, log })).outcome).toBe('skipped-drain');
    // the marker stays: capacity counts the host out, and the next rollout repairs (registers) it
    expect((await readDrainMarker(host.config.host.state)).present).toBe(true);
    expect(errors(log)).toEqual([
      expect.stringMatching(
        /r1 passes 2 checks in a row, but with drain.method: deregister the watchdog cannot reach the balancer to register the target: left drained; the next rollout registers it after its own verify, or run 'deploy undrain .+'$/,
      ),
    ]);
    expect(await healLines(host)).toEqual([{ step: 'watchdog.heal check', result: 'ok' }]);
  });

  it('never heals a marker from deploy drain (an operator’s maintenance): it only reports it', async () => {
    host = await leftDrained({ started: true });
    const log = new MemoryLog();
    const r = await tick(host.config, { clock: systemClock, log });
    expect(r.outcome).toBe('skipped-drain');
    expect((await readDrainMarker(host.config.host.state)).present).toBe(true);
    expect(log.events.filter((e) => e.level === 'error').map((e) => e.event)).toEqual([
      'watchdog.expired-drain',
    ]);
  });

  it('leaves a marker whose lease is not over alone', async () => {
    host = await hostFixture(WATCHDOG);
    const now = Date.now();
    await writeFile(
      path.join(host.config.host.state, 'draining'),
      JSON.stringify({
        by: 'rollout r2 by ci',
        since: new Date(now).toISOString(),
        until: new Date(now + 60_000).toISOString(),
        release: 'r2',
      }),
    );
    const r = await tick(host.config, { clock: systemClock, log: new MemoryLog() });
    expect(r.outcome).toBe('skipped-drain');
    expect((await readDrainMarker(host.config.host.state)).present).toBe(true);
  });
});
