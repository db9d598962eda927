import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from '../../../scripts/lab/delay-proxy.js';

let echo: net.Server | undefined;
let proxy: DelayProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  await new Promise<void>((resolve) => (echo ? echo.close(() => resolve()) : resolve()));
  proxy = undefined;
  echo = undefined;
});

/** An echo server on loopback: what it reads, it writes back. */
async function startEcho(): Promise<number> {
  echo = net.createServer((s) => s.pipe(s));
  await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', () => resolve()));
  return (echo.address() as net.AddressInfo).port;
}

/** Send `chunks` one after another, read until `expected` bytes came back. */
async function roundTrip(port: number, chunks: readonly string[], expected: number) {
  const started = Date.now();
  const socket = net.connect(port, '127.0.0.1');
  let got = '';
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.length >= expected) resolve();
    });
    socket.on('connect', () => {
      for (const c of chunks) socket.write(c);
    });
  });
  socket.destroy();
  return { got, ms: Date.now() - started };
}

describe('the lab delay proxy (latency without netem)', () => {
  it('adds twice its delay to a round trip and keeps the bytes in order', async () => {
    const port = await startEcho();
    proxy = await startDelayProxy({
      listen: { address: '127.0.0.1', port: 0 },
      target: { address: '127.0.0.1', port },
      delayMs: 100,
    });
    const chunks = ['one,', 'two,', 'three,', 'four'];
    const through = await roundTrip(proxy.port, chunks, chunks.join('').length);
    expect(through.got).toBe(chunks.join(''));
    expect(through.ms).toBeGreaterThanOrEqual(200);
  });

  it('passes the end of a connection on: the far side sees it close', async () => {
    let closed!: () => void;
    const seen = new Promise<void>((resolve) => (closed = resolve));
    echo = net.createServer((s) => s.on('end', () => closed()).resume());
    await new Promise<void>((resolve) => echo!.listen(0, '127.0.0.1', () => resolve()));
    proxy = await startDelayProxy({
      listen: { address: '127.0.0.1', port: 0 },
      target: { address: '127.0.0.1', port: (echo.address() as net.AddressInfo).port },
      delayMs: 20,
    });
    const s = net.connect(proxy.port, '127.0.0.1', () => s.end('bye'));
    await seen;
    s.destroy();
  });
});
