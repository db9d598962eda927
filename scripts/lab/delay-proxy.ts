import net from 'node:net';

/**
 * Latency where the kernel has no netem (this one: `tc qdisc add … netem` says
 * 'Specified qdisc kind is unknown', even in a network namespace):
 * a TCP proxy that holds every chunk `delayMs` before passing it on, in each
 * direction, so a round trip through it takes 2 × delayMs longer. Order is
 * kept (timers of one duration fire in the order they were set); an end or a
 * reset is passed on after the same delay.
 */
export interface DelayProxy {
  readonly address: string;
  readonly port: number;
  close(): Promise<void>;
}

export interface DelayProxyOptions {
  readonly listen: { readonly address: string; readonly port: number };
  readonly target: { readonly address: string; readonly port: number };
  /** one way: a round trip gains twice this */
  readonly delayMs: number;
}

function delayed(from: net.Socket, to: net.Socket, ms: number): void {
  from.on('data', (chunk: Buffer) => {
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, ms);
  });
  from.on('end', () => setTimeout(() => to.end(), ms));
  from.on('close', () => setTimeout(() => to.destroy(), ms));
  from.on('error', () => undefined);
}

export async function startDelayProxy(options: DelayProxyOptions): Promise<DelayProxy> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(options.target.port, options.target.address);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    delayed(client, upstream, options.delayMs);
    delayed(upstream, client, options.delayMs);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listen.port, options.listen.address, () => resolve());
  });
  const bound = server.address() as net.AddressInfo;
  return {
    address: bound.address,
    port: bound.port,
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
