import net from 'node:net';
import path from 'node:path';

/** A stand-in for haproxy's socket: answers each command from a script, records what it got. */
export interface FakeSocket {
  readonly path: string;
  readonly received: string[];
  answers: Record<string, string | null>;
  close(): Promise<void>;
}

export async function fakeSocket(dir: string): Promise<FakeSocket> {
  const fake = {
    path: path.join(dir, 'admin.sock'),
    received: [] as string[],
    answers: {} as Record<string, string | null>,
  };
  // half-open: a socket that never answers must stay open after our FIN
  const open = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (conn) => {
    open.add(conn);
    conn.on('close', () => open.delete(conn));
    let input = '';
    conn.on('data', (d: Buffer) => {
      input += d.toString();
      if (!input.endsWith('\n')) return;
      const command = input.trim();
      fake.received.push(command);
      const answer = fake.answers[command];
      if (answer === null) return; // never answers
      conn.end(answer ?? 'Unknown command.\n');
    });
  });
  await new Promise<void>((resolve) => server.listen(fake.path, resolve));
  return Object.assign(fake, {
    close: () =>
      new Promise<void>((resolve) => {
        for (const conn of open) conn.destroy();
        server.close(() => resolve());
      }),
  });
}
