import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import ssh2, { type ServerChannel } from 'ssh2';
import { encodeLine, type AgentCall } from '../../../src/protocol/lines.js';
import { answer, parseAgentArgv, type SimHostState } from './agent.js';

/** how a simulated host misbehaves: it refuses connections, never answers SSH, or answers garbage */
export type SimFault = 'refuse' | 'timeout' | 'garbage';

export interface SimHostOptions {
  readonly state: SimHostState;
  /** the round trip to the host: the SSH handshake costs two, every answer one */
  readonly rttMs: number;
  readonly fault?: SimFault;
}

export interface SimSshHost {
  readonly port: number;
  /** `ssh-ed25519 AAAA…`, for known_hosts */
  readonly publicKey: string;
  close(): Promise<void>;
}

/** ssh2 now and then writes an ed25519 key it cannot parse back: another one then */
export function hostKey(): { private: string; public: string } {
  for (;;) {
    const keys = ssh2.utils.generateKeyPairSync('ed25519');
    if (!(ssh2.utils.parseKey(keys.private) instanceof Error)) return keys;
  }
}

/** `'a' 'b'\''c'` (quote.ts) back into argv */
export function unquote(command: string): string[] {
  return (command.match(/(?:'[^']*'|\\')+/g) ?? []).map((word) =>
    word.replace(/'([^']*)'/g, '$1').replace(/\\'/g, "'"),
  );
}

/**
 * One host: an ssh2 Server on 127.0.0.1 with its own host key, accepting any
 * client key, whose exec channels answer `node -p …` and the agent protocol.
 */
export async function startSimSshHost(options: SimHostOptions): Promise<SimSshHost> {
  const keys = hostKey();
  const publicKey = keys.public.split(' ').slice(0, 2).join(' ');
  const { rttMs, fault, state } = options;
  const sockets = new Set<net.Socket>();
  const server = new ssh2.Server({ hostKeys: [keys.private] }, (client) => {
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      // the handshake's round trips before the client is in
      void sleep(rttMs * 2).then(() => ctx.accept());
    });
    client.on('ready', () => {
      client.on('session', (accept) => {
        const session = accept();
        session.on('exec', (acceptExec, _reject, info) => {
          const channel = acceptExec();
          void run(unquote(info.command), channel, state, rttMs, fault).catch(() => {
            channel.exit(1);
            channel.end();
          });
        });
      });
    });
  });
  // refuse: nothing listens; timeout: TCP is accepted, SSH never answers
  const listener =
    fault === 'refuse'
      ? net.createServer((s) => s.destroy())
      : fault === 'timeout'
        ? net.createServer((s) => void sockets.add(s))
        : server;
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const port = (listener.address() as net.AddressInfo).port;
  if (fault === 'refuse') await new Promise<void>((resolve) => listener.close(() => resolve()));
  return {
    port,
    publicKey,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        if (fault === 'refuse') resolve();
        else listener.close(() => resolve());
      }),
  };
}

async function run(
  argv: readonly string[],
  channel: ServerChannel,
  state: SimHostState,
  rttMs: number,
  fault: SimFault | undefined,
): Promise<void> {
  channel.on('error', () => undefined);
  const done = async (code: number, stdout = ''): Promise<void> => {
    await sleep(rttMs);
    if (stdout) channel.write(stdout);
    channel.exit(code);
    channel.end();
  };
  if (fault === 'garbage') return done(0, 'Segmentation fault (core dumped)\n');
  if (argv[0] === 'node') return done(0, '24.0.0\n');
  const { op, args } = parseAgentArgv(argv);
  if (op === 'lock-hold') return session(channel, state, rttMs, args.defer === true);
  const outcome = await answer(op, args, state);
  const line = outcome.ok
    ? encodeLine({ type: 'result', ok: true, data: outcome.data })
    : encodeLine({ type: 'result', ok: false, error: outcome.error });
  return done(outcome.ok ? 0 : outcome.error.exit, line);
}

/** `lock-hold`: the lock, then `call` lines answered as `reply` lines (`unlock` keeps the session) until `release` or EOF */
async function session(
  channel: ServerChannel,
  state: SimHostState,
  rttMs: number,
  defer: boolean,
): Promise<void> {
  const send = (line: Parameters<typeof encodeLine>[0]) =>
    void sleep(rttMs / 2).then(() => channel.write(encodeLine(line)));
  const take = () => {
    state.locked = true;
    return { who: 'sim', what: 'deploy rollout' };
  };
  await sleep(rttMs / 2);
  if (defer) send({ type: 'ready' });
  else send({ type: 'locked', holder: take() });
  let input = '';
  const finish = () => {
    if (!state.locked && !defer) return;
    state.locked = false;
    void sleep(rttMs / 2).then(() => {
      channel.write(
        encodeLine({ type: 'result', ok: true, data: { released: true, reason: 'released' } }),
      );
      channel.exit(0);
      channel.end();
    });
  };
  channel.on('data', (chunk: Buffer) => {
    input += chunk.toString();
    const lines = input.split('\n');
    input = lines.pop() ?? '';
    for (const text of lines) {
      if (text.trim() === 'release') return finish();
      if (!text.startsWith('{"call"')) continue;
      const call = (JSON.parse(text) as { call: AgentCall }).call;
      void (async () => {
        await sleep(rttMs / 2);
        if (call.op === 'lock') {
          send({ type: 'reply', id: call.id, ok: true, data: { holder: take() } });
          return;
        }
        if (call.op === 'unlock') {
          const released = state.locked;
          state.locked = false;
          send({ type: 'reply', id: call.id, ok: true, data: { released } });
          return;
        }
        const outcome = await answer(call.op, call.args, state);
        send(
          outcome.ok
            ? { type: 'reply', id: call.id, ok: true, data: outcome.data }
            : { type: 'reply', id: call.id, ok: false, error: outcome.error },
        );
      })();
    }
  });
  channel.on('end', finish);
}
