import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { markPath, startHeartbeat } from '../../../src/health/index.js';
import { tempDir, waitFor } from './support.js';

async function mtime(file: string): Promise<number> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return 0;
  }
}

describe('heartbeat marks', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(() => remove());

  it('touches <stateDir>/marks/<slot> on every tick while the worker says it is healthy', async () => {
    const beat = startHeartbeat({
      stateDir: dir,
      slot: 'worker-1',
      everyMs: 20,
      healthy: () => true,
    });
    try {
      const mark = path.join(dir, 'marks', 'worker-1');
      await waitFor(async () => (await mtime(mark)) > 0);
      const first = await mtime(mark);
      await waitFor(async () => (await mtime(mark)) > first);
      expect(Number((await readFile(mark, 'utf8')).trim())).toBeGreaterThan(0);
    } finally {
      beat.stop();
    }
  });

  it('lets the mark go stale when the job loop hangs, though the process and its timers live on', async () => {
    let asked = 0;
    // the loop beat once, then hung: its in-memory predicate stays false from then on
    const beat = startHeartbeat({
      stateDir: dir,
      slot: 'worker-1',
      everyMs: 10,
      healthy: () => (asked++, false),
    });
    try {
      await beat.beat();
      const mark = markPath(dir, 'worker-1');
      const last = await mtime(mark);
      await waitFor(() => asked >= 5);
      expect(await mtime(mark)).toBe(last);
    } finally {
      beat.stop();
    }
  });

  it("without a predicate, refreshes the mark only from the worker loop's own beat()", async () => {
    const loop = startHeartbeat({ stateDir: dir, slot: 'worker-1', everyMs: 10 });
    let asked = 0;
    // a second slot's timer proves timers have run meanwhile
    const clockwork = startHeartbeat({
      stateDir: dir,
      slot: 'worker-2',
      everyMs: 10,
      healthy: () => (asked++, false),
    });
    try {
      await loop.beat();
      const last = await mtime(markPath(dir, 'worker-1'));
      await waitFor(() => asked >= 5);
      expect(await mtime(markPath(dir, 'worker-1'))).toBe(last);
      await loop.beat();
      expect(await mtime(markPath(dir, 'worker-1'))).toBeGreaterThanOrEqual(last);
    } finally {
      loop.stop();
      clockwork.stop();
    }
  });

  it('refuses a slot named other than worker-<n>, which no reader would count', () => {
    expect(() => startHeartbeat({ stateDir: dir, slot: 'jobs', everyMs: 10 })).toThrow(
      /slot "jobs" is not worker-<n>/,
    );
  });

  it('writes into dir when given one, not under stateDir', async () => {
    const own = path.join(dir, 'own');
    const loop = startHeartbeat({ dir: own, stateDir: dir, slot: 'worker-1', everyMs: 10 });
    await loop.beat();
    expect(await mtime(path.join(own, 'worker-1'))).toBeGreaterThan(0);
    expect(await mtime(markPath(dir, 'worker-1'))).toBe(0);
  });

  it('stops asking the predicate once stopped', async () => {
    let asked = 0;
    const beat = startHeartbeat({
      stateDir: dir,
      slot: 'worker-1',
      everyMs: 10,
      healthy: () => (asked++, true),
    });
    await waitFor(() => asked >= 1);
    beat.stop();
    const after = asked;
    let other = 0;
    const clockwork = startHeartbeat({
      stateDir: dir,
      slot: 'worker-2',
      everyMs: 10,
      healthy: () => (other++, false),
    });
    await waitFor(() => other >= 5);
    clockwork.stop();
    expect(asked).toBe(after);
  });
});
