import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseSocketAddress } from '../../../src/balancer/haproxy/address.js';
import { HaproxyBalancer } from '../../../src/balancer/haproxy/adapter.js';
import { connectError } from '../../../src/balancer/haproxy/runtime-api.js';
import { BlockedError, ConfigError, OperationError } from '../../../src/errors.js';
import { balancerOnFake, type FakeSocket } from '../../support/fake-haproxy-socket.js';
import { freePort } from '../../support/haproxy.js';
import * as fixture from './fixtures/haproxy-2.6.js';

describe('the haproxy runtime API client', () => {
  let dir: string;
  let fake: FakeSocket;
  let balancer: HaproxyBalancer;
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, fake, balancer, close } = await balancerOnFake({ timeoutMs: 500 }));
  });
  afterEach(() => close());

  it('asks for the servers state and the stats of the backend on one connection', async () => {
    fake.answers = {
      'show servers state be_app': fixture.serversStateSteady,
      'show stat be_app 4 -1': fixture.statSteady,
    };
    const states = await balancer.states(['web-1', 'web-3']);
    // show info first: its pid tells a reload between two polls (reload-watch.ts)
    expect(fake.received).toEqual(['show info;show servers state be_app;show stat be_app 4 -1']);
    expect(fake.connections()).toBe(1);
    expect([...states.values()].map((s) => [s.target, s.inRotation])).toEqual([
      ['web-1', true],
      ['web-3', false],
    ]);
  });

  it('gives polls that come during a read one read after it, with the state of each one asked', async () => {
    fake.answers = {
      'show servers state be_app': fixture.serversStateSteady,
      'show stat be_app 4 -1': fixture.statSteady,
    };
    const polls = [['web-1'], ['web-2'], ['web-3', 'web-4'], ['web-9']].map((targets) =>
      balancer.states(targets),
    );
    const states = await Promise.all(polls);
    // the first alone, the three that came while it ran together
    expect(fake.received).toHaveLength(2);
    expect(states.map((s) => [...s.values()].map((t) => [t.target, t.state]))).toEqual([
      [['web-1', 'healthy']],
      [['web-2', 'unhealthy']],
      [
        ['web-3', 'draining'],
        ['web-4', 'unused'],
      ],
      [['web-9', 'unused']],
    ]);
    expect(states[3]?.get('web-9')?.reason).toBe('not in backend be_app');
  });

  it('names the backends there are when the configured one does not exist', async () => {
    // haproxy 2.6's answers for a backend it does not have
    fake.answers = {
      'show servers state be_app': "Can't find backend.\n",
      'show stat be_app 4 -1': 'No such proxy.\n',
      'show backend': '# name\nbe_api\nbe_admin\n',
    };
    const error = await balancer.states(['web-1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'balancer.backend: haproxy has no backend be_app (it has: be_api, be_admin)',
    );
    expect(fake.received).toEqual([
      'show info;show servers state be_app;show stat be_app 4 -1',
      'show backend',
    ]);
  });

  it("reports the servers state's failure first when the stats fail too", async () => {
    fake.answers = {
      'show servers state be_app': 'Permission denied\n',
      'show stat be_app 4 -1': 'HTTP/1.1 400 Bad Request\n',
    };
    await expect(balancer.states(['web-1'])).rejects.toThrow(
      `haproxy socket ${fake.path} refused 'show servers state be_app': its 'stats socket' line needs 'level admin'`,
    );
    fake.answers['show servers state be_app'] = fixture.serversStateSteady;
    await expect(balancer.states(['web-1'])).rejects.toThrow(
      `haproxy socket ${fake.path} answered "HTTP/1.1 400 Bad Request" to 'show stat be_app 4 -1'`,
    );
  });

  it('drains on deregister and sets ready on register', async () => {
    fake.answers = {
      'set server be_app/web-1 state drain': '\n',
      'set server be_app/web-1 state ready': '\n',
    };
    await balancer.deregister('web-1');
    await balancer.register('web-1');
    expect(fake.received).toEqual([
      'show info',
      'set server be_app/web-1 state drain',
      'set server be_app/web-1 state ready',
    ]);
  });

  it('says which target is not in the backend when haproxy has no such server', async () => {
    fake.answers = { 'set server be_app/web-9 state drain': 'No such server.\n' };
    await expect(balancer.deregister('web-9')).rejects.toThrow(
      new OperationError('haproxy has no server web-9 in backend be_app: check hosts[].target'),
    );
  });

  it('refuses a target name that would smuggle a second command, sending nothing', async () => {
    await expect(balancer.deregister('web-1;shutdown sessions')).rejects.toBeInstanceOf(
      ConfigError,
    );
    expect(fake.received).toEqual([]);
  });

  it('does not take a connection closed without a word for a done command', async () => {
    fake.answers = { 'set server be_app/web-1 state drain': '' };
    await expect(balancer.deregister('web-1')).rejects.toThrow(
      `haproxy socket ${fake.path} answered "" to 'set server be_app/web-1 state drain', which is not haproxy's runtime API: check that balancer.socket points at its 'stats socket'`,
    );
  });

  it('names the socket when what answers is not the runtime API', async () => {
    // a web server answers the whole line once, with no empty line between answers
    fake.answers = {
      'show info;show servers state be_app;show stat be_app 4 -1':
        'HTTP/1.1 400 Bad Request\r\n\r\n',
    };
    const error = await balancer.states(['web-1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationError);
    expect((error as Error).message).toBe(
      `haproxy socket ${fake.path} answered "HTTP/1.1 400 Bad Request" to 'show servers state be_app', which is not haproxy's runtime API: check that balancer.socket points at its 'stats socket'`,
    );
  });

  it('gives up on a states read that does not answer, naming what it sent', async () => {
    fake.answers = { 'show servers state be_app': null };
    const error = await balancer.states(['web-1']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toBe(
      `haproxy socket ${fake.path} did not answer 'show info;show servers state be_app;show stat be_app 4 -1' within 500 ms: check that haproxy is running and not overloaded`,
    );
  });

  it('asks for level admin when haproxy refuses a command', async () => {
    fake.answers = { 'set server be_app/web-1 state drain': 'Permission denied\n' };
    await expect(balancer.deregister('web-1')).rejects.toThrow(/needs 'level admin'/);
  });

  it('gives up on a socket that does not answer, naming it', async () => {
    fake.answers = { 'set server be_app/web-1 state drain': null };
    const error = await balancer.deregister('web-1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toBe(
      `haproxy socket ${fake.path} did not answer 'set server be_app/web-1 state drain' within 500 ms: check that haproxy is running and not overloaded`,
    );
  });

  it('blocks with one line when a tcp socket refuses the connection, a states read as a command', async () => {
    const port = await freePort();
    const tcp = new HaproxyBalancer({
      kind: 'haproxy',
      socket: `tcp://127.0.0.1:${port}`,
      backend: 'be_app',
    });
    const refused = new BlockedError(
      `haproxy socket tcp://127.0.0.1:${port} refused the connection: check that haproxy is running with 'stats socket ipv4@127.0.0.1:${port} level admin'`,
    );
    await expect(tcp.register('web-1')).rejects.toThrow(refused);
    await expect(tcp.states(['web-1'])).rejects.toThrow(refused);
  });

  it('blocks when the socket path is a stale file nothing listens on', async () => {
    const stale = path.join(dir, 'stale.sock');
    await writeFile(stale, '');
    const error = await new HaproxyBalancer({ kind: 'haproxy', socket: stale, backend: 'be_app' })
      .register('web-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlockedError);
    expect((error as Error).message).toMatch(
      new RegExp(`^haproxy socket ${stale} refused the connection`),
    );
  });

  it('asks for balancer.config when neither it nor deploy.yml give inter and timeout', async () => {
    fake.answers = { 'show stat be_app 4 -1': fixture.statSteady };
    await expect(balancer.settings()).rejects.toBeInstanceOf(ConfigError);
    await expect(balancer.settings()).rejects.toThrow(
      /^balancer\.config: haproxy's runtime API does not report 'inter'/,
    );
  });

  it('names the config file it cannot read', async () => {
    fake.answers = { 'show stat be_app 4 -1': fixture.statSteady };
    const missing = path.join(dir, 'haproxy.cfg');
    const withFile = new HaproxyBalancer({
      kind: 'haproxy',
      socket: fake.path,
      backend: 'be_app',
      config: missing,
    });
    await expect(withFile.settings()).rejects.toThrow(
      `balancer.config: cannot read haproxy config ${missing}: ENOENT`,
    );
  });

  it('says to reload haproxy when its config file disagrees with what runs', async () => {
    fake.answers = { 'show stat be_app 4 -1': fixture.statSteady };
    const file = path.join(dir, 'haproxy.cfg');
    await writeFile(
      file,
      'backend be_app\n  default-server fall 5 rise 2\n' +
        ['web-1', 'web-2', 'web-3', 'web-4']
          .map((s) => `  server ${s} 127.0.0.1:1 check\n`)
          .join(''),
    );
    const withFile = new HaproxyBalancer({
      kind: 'haproxy',
      socket: fake.path,
      backend: 'be_app',
      config: file,
    });
    await expect(withFile.settings()).rejects.toThrow(
      new OperationError(
        `haproxy settings: ${file} says fall 5 for be_app/web-1 but the running haproxy uses 3: reload haproxy, or point balancer.config at the file it runs`,
      ),
    );
  });
});

describe('a socket address', () => {
  it('is a unix path unless it starts with tcp://', () => {
    expect(parseSocketAddress('/run/haproxy/admin.sock')).toEqual({
      kind: 'unix',
      path: '/run/haproxy/admin.sock',
    });
    expect(parseSocketAddress('tcp://127.0.0.1:9999')).toEqual({
      kind: 'tcp',
      host: '127.0.0.1',
      port: 9999,
    });
    expect(parseSocketAddress('tcp://[::1]:9999')).toEqual({
      kind: 'tcp',
      host: '::1',
      port: 9999,
    });
  });

  it('is a config error when tcp:// has no valid port', () => {
    expect(() => parseSocketAddress('tcp://127.0.0.1')).toThrow(ConfigError);
    expect(() => parseSocketAddress('tcp://127.0.0.1:70000')).toThrow(
      /write it as tcp:\/\/host:port/,
    );
  });
});

describe('a connection that fails', () => {
  const unix = parseSocketAddress('/run/haproxy/admin.sock');
  const failure = (code: string) => Object.assign(new Error(code), { code });

  it('for permissions, says who may use the socket', () => {
    expect(connectError(unix, failure('EACCES')).message).toBe(
      "haproxy socket /run/haproxy/admin.sock: permission denied: run as a user allowed by its 'stats socket … mode/user/group' settings",
    );
  });

  it('for a missing socket, says to check haproxy runs with a stats socket there', () => {
    const error = connectError(unix, failure('ENOENT'));
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      "haproxy socket /run/haproxy/admin.sock does not exist: check that haproxy is running and that its global section has 'stats socket /run/haproxy/admin.sock level admin'",
    );
  });
});
