import { describe, expect, it } from 'vitest';
import { ConnectionSlots } from '../../../src/remote/connection-slots.js';
import { PooledTransport } from '../../../src/remote/pooled-transport.js';
import type { ExecResult, RemoteProcess, Transport } from '../../../src/remote/transport.js';

/** A fake of our Transport: every exec waits for `gate`, every connection is counted. */
class FakeNet {
  open = 0;
  peak = 0;
  connects: string[] = [];
  closes: string[] = [];
  failNext = new Set<string>();
  private releaseGate: () => void = () => undefined;
  gate = new Promise<void>((resolve) => (this.releaseGate = resolve));

  openGate(): void {
    this.releaseGate();
  }

  connect(host: string): Promise<Transport> {
    this.connects.push(host);
    if (this.failNext.delete(host)) return Promise.reject(new Error(`${host}: refused`));
    this.open += 1;
    this.peak = Math.max(this.peak, this.open);
    let exit: (code: number) => void = () => undefined;
    return Promise.resolve({
      host,
      exec: async (): Promise<ExecResult> => {
        await this.gate;
        return { code: 0, stdout: host, stderr: '' };
      },
      spawn: (): RemoteProcess => ({
        lines: { [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }) },
        write: () => undefined,
        end: () => exit(0),
        exited: new Promise<number>((resolve) => (exit = resolve)),
        kill: () => exit(-1),
      }),
      put: () => Promise.resolve(),
      upload: () => Promise.resolve(),
      close: () => {
        this.open -= 1;
        this.closes.push(host);
        return Promise.resolve();
      },
    });
  }
}

function fleet(n: number, max: number) {
  const net = new FakeNet();
  const slots = new ConnectionSlots(max);
  const hosts = Array.from(
    { length: n },
    (_, i) => new PooledTransport(`web-${i + 1}`, () => net.connect(`web-${i + 1}`), slots),
  );
  return { net, slots, hosts };
}

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('ssh.max_connections', () => {
  it('keeps at most max connections open while the other hosts queue, and every host finishes', async () => {
    const { net, slots, hosts } = fleet(5, 2);
    const runs = hosts.map((h) => h.exec(['true']));
    await settled();
    expect(net.connects).toEqual(['web-1', 'web-2']);
    expect(slots.counts).toMatchObject({ open: 2, queued: 3 });
    net.openGate();
    const out = await Promise.all(runs);
    expect(out.map((r) => r.stdout)).toEqual(['web-1', 'web-2', 'web-3', 'web-4', 'web-5']);
    expect(net.peak).toBe(2);
  });

  it('connects a queued host only when its turn comes (its connect timeout starts then)', async () => {
    const { net, hosts } = fleet(3, 1);
    const third = hosts[2]!.exec(['true']);
    const first = hosts[0]!.exec(['true']);
    await settled();
    // web-3 asked first and holds the slot; web-1 has not even started to connect
    expect(net.connects).toEqual(['web-3']);
    net.openGate();
    await Promise.all([first, third]);
    expect(net.connects).toEqual(['web-3', 'web-1']);
  });

  it('reuses one connection for every phase of a host while slots allow', async () => {
    const { net, hosts } = fleet(2, 2);
    net.openGate();
    const web1 = hosts[0]!;
    await web1.exec(['status']);
    await settled();
    await web1.exec(['verify']);
    await web1.put('/x', 'y');
    expect(net.connects).toEqual(['web-1']);
    expect(net.closes).toEqual([]);
  });

  it('closes an idle connection for a queued host and opens it again on its next use', async () => {
    const { net, hosts } = fleet(2, 1);
    net.openGate();
    await hosts[0]!.exec(['status']);
    await settled();
    await hosts[1]!.exec(['status']);
    expect(net.closes).toEqual(['web-1']);
    await settled();
    await hosts[0]!.exec(['verify']);
    expect(net.connects).toEqual(['web-1', 'web-2', 'web-1']);
    expect(net.peak).toBe(1);
  });

  it('never closes a connection whose process (a lock holder) still runs', async () => {
    const { net, slots, hosts } = fleet(2, 1);
    net.openGate();
    const holder = hosts[0]!.spawn(['lock-hold']);
    await settled();
    const other = hosts[1]!.exec(['status']);
    await settled();
    expect(net.closes).toEqual([]);
    expect(slots.counts.queued).toBe(1);
    holder.end();
    expect(await holder.exited).toBe(0);
    await other;
    expect(net.closes).toEqual(['web-1']);
  });

  it('gives the slot of a failed connection to the next host, and tries again on the next call', async () => {
    const { net, hosts } = fleet(2, 1);
    net.openGate();
    net.failNext.add('web-1');
    await expect(hosts[0]!.exec(['status'])).rejects.toThrow('web-1: refused');
    await hosts[1]!.exec(['status']);
    await settled();
    await hosts[0]!.exec(['status']);
    expect(net.connects).toEqual(['web-1', 'web-2', 'web-1']);
  });

  it('close() ends the connection and frees its slot', async () => {
    const { net, slots, hosts } = fleet(1, 1);
    net.openGate();
    await hosts[0]!.exec(['status']);
    await hosts[0]!.close();
    expect(net.closes).toEqual(['web-1']);
    expect(slots.counts).toEqual({ open: 0, queued: 0, idle: 0 });
  });
});
