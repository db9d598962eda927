import { rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCounters } from '../../../src/balancer/haproxy/receipt/counters.js';
import { readHaproxyCounters } from '../../../src/balancer/haproxy/receipt/read.js';
import { info, statAfterTraffic } from './fixtures/haproxy-2.6-counters.js';
import { scratchDir } from '../../support/scratch.js';
import { HaproxyBalancer } from '../../../src/balancer/haproxy/adapter.js';
import { BalancerSet } from '../../../src/balancer/set.js';
import { receiptSource } from '../../../src/evidence/create-source.js';
import { testConfig } from '../../support/config.js';
import { FakeClock } from '../../support/fake-clock.js';

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

describe('the receipt of an HAProxy on its own host (ssh:)', () => {
  // the entry's socket is a path on lb-1, not here: only the run's balancer reaches it
  const entry = {
    name: 'lb-b',
    kind: 'haproxy' as const,
    ssh: { address: 'lb-1.internal' },
    socket: '/nowhere/here/admin.sock',
    backend: 'be',
    targets: { 'web-1': 's1', 'web-2': 's2', 'web-3': 's2' },
  };
  const config = testConfig({ balancers: [entry] });

  it('has none without the run’s balancer to read through (no half receipt)', async () => {
    expect(await receiptSource(config, new FakeClock())).toBeUndefined();
  });

  it('reads the counters through the run’s balancer, over the connection it holds', async () => {
    const api = await runtimeApi({ 'show info': info, 'show stat': statAfterTraffic });
    // the run's balancer: here it reaches the socket locally, as over SSH it reaches lb-1's
    const run = new BalancerSet([
      {
        name: 'lb-b',
        balancer: new HaproxyBalancer({ kind: 'haproxy', socket: api.socket, backend: 'be' }),
        targets: new Map(),
      },
    ]);
    try {
      const source = await receiptSource(config, new FakeClock(), () => Promise.resolve(run));
      if (!source) throw new Error('no receipt source');
      const window = await source.open(['web-1']);
      const counts = await window.read();
      // the same snapshot twice: s1 counted, nothing in between
      expect(counts.get('web-1')).toMatchObject({
        kind: 'counted',
        counts: { requests: 0, failed: 0 },
      });
      expect(api.received).toEqual(['show info;show stat', 'show info;show stat']);
    } finally {
      await run.close();
      await api.close();
    }
  });
});
