import { access, readFile, rm } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock, type Clock } from '../../../src/clock.js';
import { leaseAction, leasePath } from '../../../src/host/lease-file.js';
import { withLeaseMutex, type LeaseMutex } from '../../../src/host/lease-mutex.js';
import type { LeaseRequest } from '../../../src/protocol/lease.js';
import { tempDir } from './helpers.js';

const request: LeaseRequest = {
  id: 'one',
  holder: { user: 'alice', host: 'laptop', pid: 42 },
  command: 'rollout',
};

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(() => cleanup());

/** A host whose agent is paused (SIGSTOP, a frozen VM) for `pauseMs` between any two looks at the clock. */
function pausingClock(pauseMs: number): Clock {
  let t = Date.UTC(2026, 11, 1);
  return {
    now: () => (t += pauseMs),
    sleep: () => Promise.resolve(),
  };
}

describe("the fleet lease's file mutex, lost while held", () => {
  it('a call paused past half its staleness writes nothing and says so, exit 3', async () => {
    await expect(leaseAction(dir, pausingClock(3_000), 'take', request)).rejects.toMatchObject({
      exitCode: 3,
      message: expect.stringMatching(
        /^lost the lease's mutex \S+lease\.json\.lock while this call held it \(held 6s\); nothing was written: run the command again$/,
      ) as unknown,
    });
    await expect(access(leasePath(dir))).rejects.toMatchObject({ code: 'ENOENT' });
    // the mutex is free again: the next call takes the piece
    expect(await leaseAction(dir, systemClock, 'take', request)).toMatchObject({ ok: true });
    expect(JSON.parse(await readFile(leasePath(dir), 'utf8'))).toMatchObject({ id: 'one' });
  });

  it('taken from it (removed, as a taker who judged it stale does) ends the call, never the process', async () => {
    const file = leasePath(dir);
    const small = {
      stale: 2_000,
      update: 1_000,
      retries: { retries: 0, minTimeout: 1, maxTimeout: 1, factor: 1 },
    };
    const seen: string[] = [];
    const call = withLeaseMutex(
      file,
      systemClock,
      async (mutex: LeaseMutex) => {
        await rm(`${file}.lock`, { recursive: true });
        // proper-lockfile's own timer finds it gone within `update`; the default reaction
        // would throw from that timer and end this process
        for (;;) {
          try {
            mutex.check();
          } catch (error) {
            seen.push((error as Error).message);
            throw error;
          }
          await new Promise((r) => setTimeout(r, 50));
        }
      },
      small,
    );
    await expect(call).rejects.toMatchObject({ exitCode: 3 });
    expect(seen[0]).toMatch(
      /^lost the lease's mutex \S+ while this call held it \(.+\); nothing was written/,
    );
  });
});
