import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { KnownHosts } from '../../../src/remote/known-hosts.js';
import { openClient } from '../../../src/remote/ssh-client.js';

/** a host that takes the TCP connection and never says a word of SSH */
let server: net.Server | undefined;
afterEach(
  () => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())),
);

describe('a host that never answers the SSH handshake', () => {
  it('fails its connection once, and the error ssh2 emits when it drops after that does not crash the orchestrator', async () => {
    const sockets: net.Socket[] = [];
    const closed = new Promise<void>((resolve) => {
      server = net.createServer((s) => {
        sockets.push(s);
        s.on('close', () => resolve());
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const port = (server!.address() as net.AddressInfo).port;
    const at = {
      host: 'web-1',
      hop: '',
      address: '127.0.0.1',
      port,
      user: 'deploy',
      knownHostsPath: '/dev/null',
      connectTimeout: 200,
      authDescription: 'a test key',
    };
    await expect(
      openClient(at, {
        knownHosts: new KnownHosts(''),
        auth: { describe: 'none' },
        keepaliveInterval: 0,
      }),
    ).rejects.toThrow(/web-1/);
    // the host drops the connection after the timeout: ssh2 then emits a second error
    for (const s of sockets) s.destroy();
    await closed;
    await new Promise((resolve) => setTimeout(resolve, 50));
  });
});
