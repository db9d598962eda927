import { execFileSync } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLockStatus } from '../../../src/host/lock.js';
import { hostFixture } from '../../support/host-fixture.js';
import { startSession } from '../../support/memory-io.js';

/**
 * The first `lines` lines written to the FIFO. Opened read-write, so it stays
 * open across each append's own open and close (no end of file between them);
 * opening it lets a blocked writer go.
 */
async function readFifo(file: string, lines: number): Promise<string[]> {
  const handle = await open(file, 'r+');
  const stream = handle.createReadStream({ encoding: 'utf8' });
  let text = '';
  try {
    for await (const chunk of stream) {
      text += String(chunk);
      const got = text.split('\n').filter(Boolean);
      if (got.length >= lines) return got;
    }
    return text.split('\n').filter(Boolean);
  } finally {
    stream.destroy();
  }
}

describe('audit lines in a lock session', () => {
  it('go beside the calls, in order, and are all written before the lock goes', async () => {
    const host = await hostFixture();
    // audit.jsonl as a FIFO nobody reads yet: an append blocks until someone does
    await mkdir(host.config.host.root, { recursive: true });
    const fifo = path.join(host.config.host.root, 'audit.jsonl');
    execFileSync('mkfifo', [fifo]);
    const { m, holding } = startSession(host.config, { what: 'rollout', message: 'release r2' });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    for (const step of ['lock', 'capacity', 'drain'])
      m.write(JSON.stringify({ audit: { step, result: 'ok' } }));
    // answered although the first audit line is still blocked on its append
    m.write(JSON.stringify({ call: { id: 1, op: 'heartbeat', args: {} } }));
    await expect.poll(() => m.lines.some((l) => l.type === 'reply' && l.id === 1)).toBe(true);
    // the unlock waits for the audit lines: the lock is still held
    m.write(JSON.stringify({ call: { id: 2, op: 'unlock', args: {} } }));
    expect(m.lines.some((l) => l.type === 'reply' && l.id === 2)).toBe(false);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(true);
    const written = readFifo(fifo, 3);
    await expect.poll(() => m.lines.some((l) => l.type === 'reply' && l.id === 2)).toBe(true);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
    m.write('release');
    expect(await holding).toBe(0);
    const steps = (await written).map((l) => (JSON.parse(l) as { step: string }).step);
    expect(steps).toEqual(['lock', 'capacity', 'drain']);
  });
});
