import { describe, expect, it } from 'vitest';
import {
  ReloadWatch,
  reloaded,
  type ProcessInfo,
} from '../../../src/balancer/haproxy/reload-watch.js';
import { MemoryLog } from '../../../src/log.js';
import { FakeClock } from '../../support/fake-clock.js';

/** a promise the test settles */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const p1: ProcessInfo = { pid: 1, uptimeSec: 10 };
const p2: ProcessInfo = { pid: 2, uptimeSec: 0 };

/** a watch whose `show info` answers from `infos`, recording what it reasserts */
function watch(infos: (() => Promise<ProcessInfo | undefined>)[]) {
  const reasserts: string[] = [];
  let asked = 0;
  const reload = new ReloadWatch(
    {
      info: () => {
        const next = infos[asked++];
        return next ? next() : Promise.resolve(undefined);
      },
      reassert: (before, now) => {
        reasserts.push(`${before.pid} → ${now.pid}`);
        return Promise.resolve();
      },
      everyMs: 250,
    },
    undefined,
  );
  return { reload, reasserts, asked: () => asked };
}

describe('a look whose show info comes with another read (checkWith)', () => {
  it('gives back what the read read, and looks at its info', async () => {
    const { reload, reasserts } = watch([() => Promise.resolve(p1)]);
    await reload.check();
    const value = await reload.checkWith(
      () => Promise.resolve({ info: p2, rows: 3 }),
      (read) => read.info,
    );
    expect(value.rows).toBe(3);
    expect(reasserts).toEqual(['1 → 2']);
  });

  it('starts its read only once the look under way is done, so an older info never follows a newer one', async () => {
    const first = deferred<ProcessInfo | undefined>();
    const { reload, reasserts } = watch([() => first.promise]);
    const looking = reload.check();
    let read = false;
    const withRead = reload.checkWith(
      () => {
        read = true;
        return Promise.resolve(p2);
      },
      (info) => info,
    );
    await Promise.resolve();
    expect(read).toBe(false);
    first.resolve(p1);
    await looking;
    await withRead;
    expect(read).toBe(true);
    expect(reasserts).toEqual(['1 → 2']);
  });

  it('is shared by a check() that comes while it reads: one look, no second show info', async () => {
    const reading = deferred<ProcessInfo>();
    const { reload, reasserts, asked } = watch([() => Promise.resolve(p1)]);
    await reload.check();
    const withRead = reload.checkWith(
      () => reading.promise,
      (info) => info,
    );
    const check = reload.check();
    reading.resolve(p2);
    await Promise.all([withRead, check]);
    expect(asked()).toBe(1);
    expect(reasserts).toEqual(['1 → 2']);
  });

  it("fails with its read's failure, and the look goes on as if show info had failed", async () => {
    const { reload, reasserts } = watch([() => Promise.resolve(p1)]);
    await reload.check();
    await expect(
      reload.checkWith(
        () => Promise.reject(new Error('refused')),
        (info: ProcessInfo) => info,
      ),
    ).rejects.toThrow('refused');
    await reload.checkWith(
      () => Promise.resolve(p2),
      (info) => info,
    );
    expect(reasserts).toEqual(['1 → 2']);
  });

  it('fails with the reassert that failed, and tries it again at the next look', async () => {
    let fail = true;
    const reasserts: string[] = [];
    const reload = new ReloadWatch(
      {
        info: () => Promise.resolve(p1),
        reassert: (before, now) => {
          reasserts.push(`${before.pid} → ${now.pid}`);
          return fail ? Promise.reject(new Error('no such server')) : Promise.resolve();
        },
        everyMs: 250,
      },
      undefined,
    );
    await reload.check();
    const read = () => Promise.resolve(p2);
    await expect(reload.checkWith(read, (info) => info)).rejects.toThrow('no such server');
    fail = false;
    await reload.checkWith(read, (info) => info);
    expect(reasserts).toEqual(['1 → 2', '1 → 2']);
  });
});

describe('a restart that keeps the pid (a container restarted, HAProxy its pid 1; issue 34)', () => {
  it('is a reload when the uptime grew less than the time between the looks', () => {
    // up 1 s at a look; restarted just after it; up 3 s at the next look, 10 s later
    expect(reloaded({ pid: 1, uptimeSec: 1 }, { pid: 1, uptimeSec: 3 }, 10_000)).toBe(true);
    // the same process, up 10 s more (and one read a second late) is not
    expect(reloaded({ pid: 1, uptimeSec: 1 }, { pid: 1, uptimeSec: 11 }, 10_000)).toBe(false);
    expect(reloaded({ pid: 1, uptimeSec: 1 }, { pid: 1, uptimeSec: 10 }, 10_000)).toBe(false);
    // as before: another pid, or an uptime that went back
    expect(reloaded({ pid: 1, uptimeSec: 5 }, { pid: 2, uptimeSec: 50 }, 0)).toBe(true);
    expect(reloaded({ pid: 1, uptimeSec: 5 }, { pid: 1, uptimeSec: 4 }, 0)).toBe(true);
  });

  it('puts the states back when the watch sees it, timing its looks by the run clock', async () => {
    const clock = new FakeClock();
    const infos: ProcessInfo[] = [
      { pid: 1, uptimeSec: 1 },
      { pid: 1, uptimeSec: 3 },
    ];
    const reasserts: string[] = [];
    const reload = new ReloadWatch(
      {
        info: () => Promise.resolve(infos.shift()),
        reassert: (before, now) => {
          reasserts.push(`up ${before.uptimeSec}s → up ${now.uptimeSec}s`);
          return Promise.resolve();
        },
        everyMs: 250,
      },
      { clock, log: new MemoryLog() },
    );
    await reload.check();
    clock.advance(10_000);
    await reload.check();
    expect(reasserts).toEqual(['up 1s → up 3s']);
  });
});
