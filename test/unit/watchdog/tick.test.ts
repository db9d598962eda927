import { mkdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../src/clock.js';
import { OperationError } from '../../../src/errors.js';
import { acquireHostLock } from '../../../src/host/lock.js';
import { publishRelease, switchRelease } from '../../../src/host/releases.js';
import { createRuntime } from '../../../src/host/runtime/create.js';
import { StateStore } from '../../../src/host/state-store.js';
import { runtimeSettings } from '../../../src/host/runtime/runtime.js';
import { MemoryLog } from '../../../src/log.js';
import { tick } from '../../../src/watchdog/tick.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';

const WATCHDOG = `watchdog: { every: 1s, failures_before_restart: 4, successes_before_healthy: 2, start_period: 1s, max_restarts: 2, restart_window: 10m }`;

let host: HostFixture | undefined;
afterEach(async () => {
  if (host)
    await runtime(host)
      .stop()
      .catch(() => undefined);
  host = undefined;
});

function runtime(h: HostFixture) {
  return createRuntime(runtimeSettings(h.config), 'r1');
}

/** A host with release r1 live and its service answering. */
async function liveHost(
  files: Record<string, string> = {},
  options: Parameters<typeof hostFixture>[1] = {},
): Promise<HostFixture> {
  const h = await hostFixture(WATCHDOG, options);
  await publishRelease(h.config.host.root, 'r1', { '.env': 'RELEASE=r1\n', ...files });
  await switchRelease(h.config.host.root, 'r1');
  await runtime(h).start();
  await up(h);
  return h;
}

/** its service answers 200 again (within 10 s) */
function up(h: HostFixture) {
  return expect
    .poll(
      () =>
        fetch(`http://127.0.0.1:${h.port}/health`)
          .then((r) => r.status)
          .catch(() => 0),
      { timeout: 10_000 },
    )
    .toBe(200);
}

async function ticks(h: HostFixture, n: number, log = new MemoryLog()) {
  const outcomes = [];
  for (let i = 0; i < n; i += 1) outcomes.push(await tick(h.config, { clock: systemClock, log }));
  return {
    outcomes,
    log,
    restartedAt: outcomes.flatMap((o, i) => (o.restarted.length ? [i + 1] : [])),
  };
}

async function kill(h: HostFixture): Promise<void> {
  const pid = await h.pid();
  if (pid) process.kill(pid, 'SIGKILL');
  await expect
    .poll(() =>
      fetch(`http://127.0.0.1:${h.port}/health`)
        .then(() => 'up')
        .catch(() => 'down'),
    )
    .toBe('down');
}

describe('a watchdog tick', () => {
  it('restarts a killed service on exactly the 4th failing tick, and it comes back', async () => {
    host = await liveHost();
    await ticks(host, 1);
    await kill(host);
    const { restartedAt, log } = await ticks(host, 4);
    expect(restartedAt).toEqual([4]);
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${host!.port}/health`)
            .then((r) => r.status)
            .catch(() => 0),
        { timeout: 10_000 },
      )
      .toBe(200);
    expect(log.events.map((e) => e.event)).toEqual(['watchdog.unhealthy', 'watchdog.restart']);
    const audit = await readFile(path.join(host.config.host.root, 'audit.jsonl'), 'utf8');
    expect(JSON.parse(audit.trim())).toMatchObject({
      step: 'watchdog.restart app',
      result: 'ok',
      release: 'r1',
    });
  });

  it('with expect_release, counts an answer that does not name the live release a failure', async () => {
    // the fixture's service answers 200 without x-release: healthy to a plain check
    host = await liveHost({}, { expectRelease: true });
    const log = new MemoryLog();
    const { restartedAt } = await ticks(host, 4, log);
    expect(restartedAt).toEqual([4]);
    expect(log.events.some((e) => e.message.includes('release-mismatch'))).toBe(true);
  });

  it('never restarts a flapping service', async () => {
    host = await liveHost();
    const fail = path.join(host.config.host.state, 'FAIL');
    const log = new MemoryLog();
    for (let i = 0; i < 10; i += 1) {
      if (i % 2 === 0) await writeFile(fail, '');
      else await rm(fail, { force: true });
      const o = await tick(host.config, { clock: systemClock, log });
      expect(o.restarted).toEqual([]);
    }
  });

  it('does nothing while the host lock is held, and says so once', async () => {
    host = await liveHost();
    const lock = await acquireHostLock(host.config.host.lock, {
      what: 'deploy rollout',
      message: 'release r2',
    });
    try {
      await kill(host);
      const { outcomes, restartedAt, log } = await ticks(host, 6);
      expect(restartedAt).toEqual([]);
      expect(outcomes.every((o) => o.outcome === 'skipped-lock')).toBe(true);
      expect(log.events.map((e) => e.event).filter((e) => e !== 'watchdog.started')).toEqual([
        'watchdog.skipped-for-deploy',
      ]);
    } finally {
      await lock.release();
    }
  });

  it('stands aside while a deploy is waiting for the lock, but not for a stale wish', async () => {
    host = await liveHost();
    const wanted = path.join(host.config.host.state, 'lock-wanted');
    await writeFile(wanted, '{}');
    await kill(host);
    const fresh = await ticks(host, 5);
    expect(fresh.outcomes.every((o) => o.outcome === 'skipped-lock')).toBe(true);
    const old = new Date(Date.now() - 10 * 60_000);
    await utimes(wanted, old, old);
    expect((await ticks(host, 1)).outcomes[0]?.outcome).toBe('checked');
  });

  it('does nothing while the drain marker exists', async () => {
    host = await liveHost();
    await writeFile(
      path.join(host.config.host.state, 'draining'),
      JSON.stringify({
        by: 't',
        since: new Date().toISOString(),
        until: new Date(Date.now() + 60_000).toISOString(),
      }),
    );
    await kill(host);
    const { outcomes, log } = await ticks(host, 5);
    expect(outcomes.every((o) => o.outcome === 'skipped-drain')).toBe(true);
    expect(log.events.filter((e) => e.event !== 'watchdog.started')).toEqual([]);
  });

  it('reports an expired drain marker with nobody holding the lock, once, at ERROR', async () => {
    host = await liveHost();
    const past = Date.now() - 60_000;
    await writeFile(
      path.join(host.config.host.state, 'draining'),
      JSON.stringify({
        by: 'rollout r2',
        since: new Date(past).toISOString(),
        until: new Date(past + 1000).toISOString(),
      }),
    );
    const { log } = await ticks(host, 3);
    expect(log.events.filter((e) => e.level === 'error').map((e) => e.event)).toEqual([
      'watchdog.expired-drain',
    ]);
  });

  it('reports a marker that expires while ticks are watching it, once', async () => {
    host = await liveHost();
    const now = Date.now();
    await writeFile(
      path.join(host.config.host.state, 'draining'),
      JSON.stringify({
        by: 'rollout r2',
        since: new Date(now).toISOString(),
        until: new Date(now + 60_000).toISOString(),
      }),
    );
    const log = new MemoryLog();
    const at = (t: number) => ({ now: () => t, sleep: () => Promise.resolve() });
    for (const t of [now, now + 30_000, now + 120_000, now + 180_000])
      await tick(host.config, { clock: at(t), log });
    expect(log.events.filter((e) => e.level === 'error').map((e) => e.event)).toEqual([
      'watchdog.expired-drain',
    ]);
  });

  it('gives up on a crash-looping service after max_restarts, with one ERROR', async () => {
    host = await liveHost();
    const log = new MemoryLog();
    let restarts = 0;
    for (let i = 0; i < 16; i += 1) {
      await kill(host).catch(() => undefined);
      const o = await tick(host.config, { clock: systemClock, log });
      restarts += o.restarted.length;
      // past start_period, so the next failures count
      await new Promise((r) => setTimeout(r, o.restarted.length ? 1100 : 0));
    }
    expect(restarts).toBe(2);
    expect(log.events.filter((e) => e.level === 'error').map((e) => e.event)).toEqual([
      'watchdog.gave-up',
    ]);
  });

  it('starts fresh, with a warning, when watchdog.json is corrupt', async () => {
    host = await liveHost();
    await writeFile(path.join(host.config.host.state, 'watchdog.json'), '{"version": 1, "serv');
    const { outcomes, log } = await ticks(host, 1);
    expect(outcomes[0]?.outcome).toBe('checked');
    expect(log.events[0]).toMatchObject({ level: 'warn', event: 'watchdog.state' });
    expect(
      JSON.parse(await readFile(path.join(host.config.host.state, 'watchdog.json'), 'utf8')),
    ).toMatchObject({ version: 1 });
  });

  it('starts fresh, with a warning naming the field, when watchdog.json has the wrong shape', async () => {
    host = await liveHost();
    const file = path.join(host.config.host.state, 'watchdog.json');
    const trigger = { health: 'unhealthy', failures: -1, successes: 0 };
    await writeFile(
      file,
      JSON.stringify({ version: 1, services: { app: { trigger, restarts: [], gaveUp: false } } }),
    );
    const { outcomes, log } = await ticks(host, 1);
    expect(outcomes[0]?.outcome).toBe('checked');
    expect(log.events[0]).toMatchObject({
      level: 'warn',
      event: 'watchdog.state',
      message: expect.stringMatching(
        /unexpected shape \(services\.app\.trigger\.failures: expected a non-negative integer/,
      ) as unknown,
    });
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      services: { app: { trigger: { failures: 0 } } },
    });
  });

  it('creates a missing host.state directory', async () => {
    host = await liveHost();
    await runtime(host).stop();
    await rm(host.config.host.state, { recursive: true, force: true });
    const { outcomes } = await ticks(host, 1);
    expect(outcomes[0]?.outcome).toBe('checked');
    await mkdir(host.config.host.state, { recursive: true });
  });

  it('says once that no release is live, records it, and says nothing more until one is', async () => {
    host = await hostFixture(WATCHDOG);
    const log = new MemoryLog();
    const { outcomes } = await ticks(host, 3, log);
    expect(outcomes.map((o) => o.outcome)).toEqual(['no-release', 'no-release', 'no-release']);
    expect(log.events.map((e) => e.event)).toEqual(['watchdog.started', 'watchdog.no-release']);
    const file = path.join(host.config.host.state, 'watchdog.json');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ noRelease: true });
    await publishRelease(host.config.host.root, 'r1', { '.env': 'RELEASE=r1\n' });
    await switchRelease(host.config.host.root, 'r1');
    await runtime(host).start();
    const after = await ticks(host, 1, log);
    expect(after.outcomes[0]?.outcome).toBe('checked');
    expect(JSON.parse(await readFile(file, 'utf8'))).not.toHaveProperty('noRelease');
  });

  describe('on a full host.state', () => {
    /** host.state as a full tmpfs leaves it: the temp file of every save fails with ENOSPC */
    class FullStore extends StateStore {
      constructor(
        dir: string,
        private readonly roomInPlace: boolean,
      ) {
        super(dir);
      }
      override write(name: string): Promise<void> {
        const cause = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        return Promise.reject(new OperationError(`cannot write ${name}`, { cause }));
      }
      override overwrite(name: string, value: unknown): Promise<void> {
        return this.roomInPlace ? super.overwrite(name, value) : this.write(name);
      }
    }
    const restartLines = async (h: HostFixture) =>
      new Set(
        (await readFile(path.join(h.config.host.root, 'audit.jsonl'), 'utf8').catch(() => ''))
          .split('\n')
          .filter((l) => l.includes('"watchdog.restart app"'))
          .map((l) => (JSON.parse(l) as { start: string }).start),
      ).size;

    /** three failing ticks saved as usual: the next failure is the 4th */
    async function dueForRestart(h: HostFixture, clock: Clock, log: MemoryLog): Promise<void> {
      await tick(h.config, { clock, log });
      await kill(h);
      for (let i = 0; i < 3; i += 1) await tick(h.config, { clock, log });
    }

    it('still restarts a dead service, names ENOSPC, and saves its counters in place', async () => {
      host = await liveHost();
      const log = new MemoryLog();
      await dueForRestart(host, systemClock, log);
      const store = new FullStore(host.config.host.state, true);
      await expect(tick(host.config, { clock: systemClock, log, store })).rejects.toThrow(
        /\(ENOSPC: host\.state is full; .*written over the old file in place/,
      );
      await up(host);
      expect(log.events.map((e) => e.event)).toContain('watchdog.restart');
      const saved = JSON.parse(
        await readFile(path.join(host.config.host.state, 'watchdog.json'), 'utf8'),
      ) as { services: { app: { restarts: number[] } } };
      expect(saved.services.app.restarts).toHaveLength(1);
    });

    it('with no room at all, restarts as audit.jsonl allows: never within start_period, at most max_restarts', async () => {
      host = await liveHost();
      let t = Date.now();
      const clock: Clock = { now: () => t, sleep: () => Promise.resolve() };
      const log = new MemoryLog();
      await dueForRestart(host, clock, log);
      const store = new FullStore(host.config.host.state, false);
      const full = () => tick(host!.config, { clock, log, store });
      await expect(full()).rejects.toThrow(/ENOSPC: host\.state is full; .*audit\.jsonl first/);
      await up(host);
      expect(await restartLines(host)).toBe(1);
      // every later tick starts from the counters before that restart: 3 failures, due at once
      for (let i = 0; i < 5; i += 1) {
        await kill(host);
        t += 100; // within start_period (1 s) of the restart
        await expect(full()).rejects.toThrow(/ENOSPC/);
      }
      expect(await restartLines(host)).toBe(1);
      t += 2_000;
      await expect(full()).rejects.toThrow(/ENOSPC/);
      await up(host);
      expect(await restartLines(host)).toBe(2);
      for (let i = 0; i < 3; i += 1) {
        await kill(host);
        t += 2_000;
        await expect(full()).rejects.toThrow(/ENOSPC/);
      }
      // max_restarts: 2 within the 10 m window
      expect(await restartLines(host)).toBe(2);
      expect(log.events.map((e) => e.event)).toContain('watchdog.gave-up');
    });
  });
});
