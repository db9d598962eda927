import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHealth, markPath, startHeartbeat } from '../../../src/health/index.js';
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

  it('touches <stateDir>/marks/<slot> again and again while it runs', async () => {
    const beat = startHeartbeat({ stateDir: dir, slot: 'worker-1', everyMs: 20 });
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

  it('stops touching the mark once stopped, so a dead worker shows as stale', async () => {
    const beat = startHeartbeat({ stateDir: dir, slot: 'worker-2', everyMs: 10 });
    const mark = markPath(dir, 'worker-2');
    await waitFor(async () => (await mtime(mark)) > 0);
    beat.stop();
    // a beat already in flight when stop() ran may still land; let it
    await beat.beat();
    await new Promise((r) => setTimeout(r, 30));
    const last = await mtime(mark);
    await new Promise((r) => setTimeout(r, 60));
    expect(await mtime(mark)).toBe(last);
  });

  it('keeps one mark per slot when createHealth is given heartbeat slots', async () => {
    const health = createHealth({
      stateDir: dir,
      heartbeat: { slots: ['worker-1', 'worker-2'], everyMs: 20 },
    });
    try {
      await waitFor(async () => (await mtime(markPath(dir, 'worker-2'))) > 0);
      expect(await mtime(markPath(dir, 'worker-1'))).toBeGreaterThan(0);
    } finally {
      health.close();
    }
  });
});
