import { rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCounters } from '../../../src/evidence/haproxy-counters.js';
import { readHaproxyCounters } from '../../../src/evidence/haproxy-read.js';
import { info, statAfterTraffic } from './fixtures/haproxy-2.6-counters.js';
import { scratchDir } from '../../support/scratch.js';

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** A runtime API socket that answers `;`-separated commands as haproxy 2.6 does: each answer, then an empty line. */
async function runtimeApi(answers: Record<string, string>) {
  const dir = await scratchDir('handoff-haproxy-read-');
  dirs.push(dir);
  const socket = path.join(dir, 'admin.sock');
  const received: string[] = [];
  const server = net.createServer((conn) => {
    let text = '';
    conn.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    conn.on('end', () => {
      received.push(text.trim());
      conn.end(
        text
          .trim()
          .split(';')
          .map((c) => `${answers[c] ?? 'Unknown command.\n'}\n`)
          .join(''),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    socket,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("readHaproxyCounters: one snapshot of a backend's counters", () => {
  it('asks `show info` then `show stat` on one connection, and reads both answers', async () => {
    const api = await runtimeApi({ 'show info': info, 'show stat': statAfterTraffic });
    try {
      const counters = await readHaproxyCounters({ socket: api.socket, backend: 'be' });
      const expected = parseCounters(statAfterTraffic, info, 'be');
      if (!expected.ok) throw new Error(expected.reason);
      expect(counters).toEqual(expected.counters);
      expect(api.received).toEqual(['show info;show stat']);
    } finally {
      await api.close();
    }
  });

  it('an answer without the CSV: the error quotes what came instead of it', async () => {
    const api = await runtimeApi({ 'show info': info, 'show stat': 'Permission denied\n' });
    try {
      await expect(readHaproxyCounters({ socket: api.socket, backend: 'be' })).rejects.toThrow(
        /answered "Permission denied" to 'show stat'/,
      );
    } finally {
      await api.close();
    }
  });
});
