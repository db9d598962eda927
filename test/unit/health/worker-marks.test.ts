import { spawn } from 'node:child_process';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startWorkerMarks, type WorkerMarks } from '../../../src/health/index.js';
import { FakeClock } from '../../support/fake-clock.js';
import { tempDir, waitFor } from './support.js';
import { scratchDir } from '../../support/scratch.js';

describe('worker heartbeat marks', () => {
  let dir: string;
  let remove: () => Promise<void>;
  const started: WorkerMarks[] = [];
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(async () => {
    for (const m of started.splice(0)) m.stop();
    await remove();
  });
  const lines: string[] = [];
  const log = (level: string, message: string): void => void lines.push(`${level} ${message}`);
  beforeEach(() => void lines.splice(0));

  function start(
    slot: number,
    healthy: () => boolean,
    extra: { clock?: FakeClock; dir?: string } = {},
  ) {
    const m = startWorkerMarks({
      stateDir: dir,
      slot,
      slots: 2,
      everyMs: 10,
      healthy,
      log,
      ...extra,
    });
    started.push(m);
    return m;
  }
  const marks = () => path.join(dir, 'marks');
  const visible = async () => (await readdir(marks())).filter((n) => !n.startsWith('.')).sort();

  it('names the mark by slot, so a respawned slot overwrites its own file', async () => {
    const first = start(1, () => true);
    await first.ready;
    await waitFor(async () => (await visible()).includes('worker-1'));
    const before = (await stat(path.join(marks(), 'worker-1'))).mtimeMs;
    first.stop();
    await start(1, () => true).ready;
    await waitFor(async () => (await stat(path.join(marks(), 'worker-1'))).mtimeMs > before);
    expect(await visible()).toEqual(['expected', 'worker-1']);
    expect(await readFile(path.join(marks(), 'expected'), 'utf8')).toBe('2\n');
  });

  it('logs only transitions: healthy → stale → healthy', async () => {
    let healthy = true;
    let asked = 0;
    await start(1, () => (asked++, healthy)).ready;
    await waitFor(() => asked >= 3);
    healthy = false;
    await waitFor(() => lines.some((l) => l.includes('stale')));
    const at = asked;
    await waitFor(() => asked >= at + 3);
    healthy = true;
    await waitFor(() => lines.some((l) => l.includes('healthy again')));
    expect(lines.filter((l) => !l.includes('tmpfs'))).toEqual([
      'warn worker-1: stale: its loop stopped saying it is healthy',
      'info worker-1: healthy again',
    ]);
  });

  it("writes its mark and expected where the runtime's HANDOFF_MARKS_DIR says, unless given a dir", async () => {
    const exported = path.join(dir, 'workers');
    vi.stubEnv('HANDOFF_MARKS_DIR', exported);
    try {
      await start(1, () => true).ready;
      await waitFor(async () =>
        (await readdir(exported).catch((): string[] => [])).includes('worker-1'),
      );
      expect(await readFile(path.join(exported, 'expected'), 'utf8')).toBe('2\n');
      const own = path.join(dir, 'own');
      await start(2, () => true, { dir: own }).ready;
      await waitFor(async () =>
        (await readdir(own).catch((): string[] => [])).includes('worker-2'),
      );
      expect(await readdir(exported)).not.toContain('worker-2');
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('refuses a slot outside 1..slots, whose mark no reader would count', () => {
    expect(() => start(0, () => true)).toThrow(RangeError);
    expect(() => start(3, () => true)).toThrow(/slot 3 of 2/);
  });

  it('reports a slot that keeps restarting before it is ever healthy once per grace window', async () => {
    const clock = new FakeClock();
    for (let i = 0; i < 4; i++) {
      const m = start(2, () => false, { clock });
      await m.ready;
      m.stop();
      clock.advance(10_000);
    }
    const restarts = () => lines.filter((l) => l.startsWith('error') && l.includes('started'));
    expect(restarts()).toEqual([
      'error worker-2: started 2 times within 60s without once being healthy',
    ]);
    clock.advance(60_000);
    await start(2, () => false, { clock }).ready;
    expect(restarts()).toHaveLength(2);
  });

  it('says once, loudly, when the marks are not on tmpfs', async () => {
    await start(1, () => true).ready;
    const onTmpfs = (await import('node:fs')).statfsSync(dir).type === 0x01021994;
    expect(lines.filter((l) => l.includes('not on tmpfs'))).toHaveLength(onTmpfs ? 0 : 1);
  });

  it('never lets a reader see expected empty or missing while slots rewrite it', async () => {
    const shared = await scratchDir('handoff-expected-');
    try {
      const writer = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          path.join(import.meta.dirname, 'fixtures', 'expected-writer.ts'),
          shared,
        ],
        { stdio: ['pipe', 'pipe', 'inherit'] },
      );
      await once(writer.stdout, 'data');
      const seen = new Set<string>();
      for (let i = 0; i < 20_000; i++)
        seen.add(readFileSync(path.join(shared, 'expected'), 'utf8'));
      writer.stdin.end();
      await once(writer, 'exit');
      expect([...seen].sort()).toEqual(expect.arrayContaining(['2\n']));
      expect([...seen].every((s) => s === '2\n' || s === '3\n')).toBe(true);
    } finally {
      await rm(shared, { recursive: true, force: true });
    }
  });
});
