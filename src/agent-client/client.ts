import { HostUnreachableError, OperationError } from '../errors.js';
import type { Log } from '../log.js';
import { toFlags, type CallArgs } from '../protocol/args.js';
import {
  decodeLine,
  relayEvent,
  type AgentEventLine,
  type AgentResultLine,
} from '../protocol/lines.js';
import { OPS, type AgentOp, type ArgsOf, type ResultOf } from '../protocol/ops.js';
import type { OpSpec } from '../protocol/spec.js';
import type { RemoteProcess, Transport } from '../remote/transport.js';
import { secretMask } from '../safe-text.js';
import { AgentOps } from './agent-ops.js';
import type { HeldLock, HostAgent, LockLoss, LockLossCause } from './host-agent.js';

export type { HeldLock, LockLoss, LockLossCause } from './host-agent.js';
import { noProtocol, refused } from './refusal.js';
import { AgentSession } from './session.js';

/** how long a holder's last line may trail its exit, and a probe of the connection may take */
const LAST_WORD_MS = 2_000;
const PROBE_MS = 10_000;

export interface AgentPaths {
  /** host.agent: the agent lives at <agent>/bin/deploy */
  readonly agent: string;
  /** the host config published by `deploy setup` */
  readonly hostConfig: string;
}

/**
 * The agent this deploy expects on a host, shared by every client of that
 * host: the first operation carries `--expect-agent`, and once an agent has
 * answered one, the others need not ask again.
 */
export interface AgentIdentity {
  readonly expected: string;
  verified: boolean;
}

/**
 * The orchestrator's side of `deploy host …` over any Transport: every
 * operation goes through `run`, which takes the channel from the table
 * (protocol/ops.ts) — its own process, or a line in the host's open session.
 */
export class AgentClient extends AgentOps implements HostAgent {
  private session: AgentSession | undefined;
  private sessionProc: RemoteProcess | undefined;
  /** `locked` operations go through the session only while it holds the lock */
  private locked = false;
  /** the holder died while holding: nothing may run as if it still held the lock */
  private lockLost = false;

  constructor(
    protected readonly transport: Transport,
    private readonly paths: AgentPaths,
    private readonly log: Log,
    private readonly identity?: AgentIdentity,
    /**
     * false: `openSession` opens none, and the lock holder starts when the lock
     * is taken; a session held from preflight on would hold its connection, and
     * a fleet larger than ssh.max_connections would wait for a slot forever
     */
    private readonly options: { readonly sessions?: boolean } = {},
  ) {
    super();
  }

  /**
   * Run one operation where the table says: inside the open session (a line on
   * an open channel) or as its own `deploy host <op>` process.
   */
  async run<K extends AgentOp>(op: K, args: ArgsOf<K>): Promise<ResultOf<K>> {
    const spec: OpSpec = OPS[op];
    const callArgs: CallArgs = args;
    const timeoutMs =
      typeof spec.timeoutMs === 'function' ? spec.timeoutMs(callArgs) : spec.timeoutMs;
    if (spec.channel === 'locked' && this.lockLost)
      throw new HostUnreachableError(
        this.host,
        `the connection holding the host lock dropped; not running ${op} without the lock`,
      );
    const session =
      spec.channel === 'session' ? !this.lockLost : spec.channel === 'locked' && this.locked;
    // the holder's own words go to the holder, or nowhere
    const data =
      (this.session && session) || spec.channel === 'holder'
        ? await this.inSession(op, callArgs, timeoutMs)
        : await this.exec(op, spec, callArgs, timeoutMs);
    return data as ResultOf<K>;
  }

  private async inSession(op: AgentOp, args: CallArgs, timeoutMs?: number): Promise<unknown> {
    if (!this.session) throw new HostUnreachableError(this.host, `no agent session for ${op}`);
    const r = await this.session.call(op, args, timeoutMs);
    if (!r.ok && r.error) throw refused(this.host, r.error);
    return r.data;
  }

  /** `deploy host <op>` as a process of its own: its events relayed, its one result read */
  private async exec(
    op: AgentOp,
    spec: OpSpec,
    args: CallArgs,
    timeoutMs: number | undefined,
  ): Promise<unknown> {
    const onStdin = spec.stdin;
    // the stdin argument goes as the process's stdin, always given so that it ends
    const flags = Object.entries(args).filter(([name]) => name !== onStdin);
    const r = await this.transport.exec(this.argv(op, toFlags(Object.fromEntries(flags))), {
      ...(onStdin !== undefined ? { stdin: String(args[onStdin] ?? '') } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    let result: AgentResultLine | undefined;
    for (const text of r.stdout.split('\n')) {
      const line = decodeLine(text);
      if (line?.type === 'event') relayEvent(this.log, this.host, line);
      else if (line?.type === 'result') result = line;
    }
    if (!result) throw noProtocol(this.host, this.agentPath, op, r.code, r.stderr);
    if (!result.ok) throw refused(this.host, result.error);
    this.answered();
    return result.data;
  }

  /**
   * A `process` operation whose events matter as they come (`logs -f`,
   * `exec`): its own `deploy host <op>` process, each event handed to
   * `onEvent` at once. Aborting closes the agent's stdin, which stops what it
   * runs on the host; it still answers with its result.
   */
  async stream<K extends AgentOp>(
    op: K,
    args: ArgsOf<K>,
    onEvent: (line: AgentEventLine) => void,
    signal?: AbortSignal,
  ): Promise<ResultOf<K>> {
    const proc = this.transport.spawn(this.argv(op, toFlags(args)));
    const stop = (): void => proc.end();
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
    let result: AgentResultLine | undefined;
    try {
      for await (const text of proc.lines) {
        const line = decodeLine(text);
        if (line?.type === 'event') onEvent(line);
        else if (line?.type === 'result') result = line;
      }
      const code = await proc.exited;
      if (!result) throw noProtocol(this.host, this.agentPath, op, code, '');
    } finally {
      signal?.removeEventListener('abort', stop);
      proc.end();
    }
    if (!result.ok) throw refused(this.host, result.error);
    this.answered();
    return result.data as ResultOf<K>;
  }

  private get agentPath(): string {
    return `${this.paths.agent}/bin/deploy`;
  }

  private argv(op: AgentOp, flags: readonly string[]): string[] {
    const identity = this.identity;
    return [
      this.agentPath,
      'host',
      op,
      '--config',
      this.paths.hostConfig,
      ...flags,
      ...(identity && !identity.verified ? ['--expect-agent', identity.expected] : []),
    ];
  }

  /**
   * An operation that carried --expect-agent succeeded: the agent is the expected
   * one. (A refusal may come before the agent compared: a bad config, a bad flag.)
   */
  private answered(): void {
    if (this.identity) this.identity.verified = true;
  }

  /**
   * Start the agent that will hold this host's lock, without taking the lock
   * yet: done during prepare, so the lock step later costs a line, not a
   * process start on the host.
   */
  async openSession(): Promise<void> {
    if (this.sessionProc || this.options.sessions === false) return;
    await this.startHolder({ defer: true }, 'ready');
  }

  /** the one `lock-hold` process: up once it says `want` (deferred: ready; else: locked) */
  private async startHolder(
    args: ArgsOf<'lock-hold'>,
    want: 'ready' | 'locked',
  ): Promise<RemoteProcess> {
    const proc = this.transport.spawn(this.argv('lock-hold', toFlags(args)));
    const lines = proc.lines[Symbol.asyncIterator]();
    await this.until(proc, lines, want);
    this.attach(proc, lines);
    return proc;
  }

  /** End the session unless it holds the lock (the command is over, or never reached this host). */
  close(): void {
    if (!this.sessionProc || this.locked) return;
    this.session?.quiet();
    this.sessionProc.end();
  }

  /**
   * Take the host lock through a long-lived `lock-hold`: the agent holds it until
   * we release it or stdin closes, so a dropped SSH session releases it too.
   */
  async holdLock(what: string, message: string): Promise<HeldLock> {
    this.lockLost = false;
    if (this.session && this.sessionProc && !this.locked) {
      const proc = this.sessionProc;
      await this.run('lock', { what, message });
      this.locked = true;
      return this.held(proc);
    }
    const proc = await this.startHolder({ what, message }, 'locked');
    this.locked = true;
    return this.held(proc);
  }

  private async until(
    proc: RemoteProcess,
    lines: AsyncIterator<string>,
    want: 'ready' | 'locked',
  ): Promise<void> {
    for (;;) {
      const next = await lines.next();
      if (next.done)
        throw noProtocol(this.host, this.agentPath, 'lock-hold', await proc.exited, '');
      const line = decodeLine(next.value);
      if (line?.type === want) {
        this.answered();
        return;
      }
      if (line?.type === 'result' && !line.ok) {
        proc.end();
        throw refused(this.host, line.error);
      }
    }
  }

  private attach(proc: RemoteProcess, lines: AsyncIterator<string>): void {
    this.session = new AgentSession(this.host, proc, lines, this.log);
    this.sessionProc = proc;
    void proc.exited.then(() => {
      if (this.sessionProc !== proc) return;
      if (this.locked) this.lockLost = true;
      this.session = undefined;
      this.sessionProc = undefined;
      this.locked = false;
    });
  }

  /**
   * Whether a holder that went away took the connection with it. A last word
   * on the session (its error: the lock went stale; or its reason: it ended
   * the session) came down the connection; without one, a command over the
   * same transport says whether it still answers (a holder killed on the host).
   */
  private async whyLost(session: AgentSession | undefined): Promise<LockLossCause> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const last = await Promise.race([
      session?.finished,
      new Promise<undefined>(
        (resolve) => (timer = setTimeout(() => resolve(undefined), LAST_WORD_MS)),
      ),
    ]);
    clearTimeout(timer);
    if (last)
      return {
        connected: true,
        said: last.ok ? { reason: last.reason ?? 'ended' } : { error: last.message ?? 'unknown' },
      };
    const connected = await this.transport
      .exec(['true'], { timeoutMs: PROBE_MS })
      .then((r) => r.code === 0)
      .catch(() => false);
    return { connected };
  }

  private held(proc: RemoteProcess): HeldLock {
    const session = this.session;
    let releasing = false;
    const lost = new Promise<LockLoss>((resolve) => {
      void proc.exited.then(() => {
        if (releasing) return;
        this.log.emit({
          level: 'error',
          event: 'lock.lost',
          message: 'the host lock holder went away',
          host: this.host,
        });
        let why: Promise<LockLossCause> | undefined;
        resolve({ why: () => (why ??= this.whyLost(session)) });
      });
    });
    return {
      lost,
      // masked here: the host's agent never saw the rollout's secrets
      audit: (entry) => proc.write(`${JSON.stringify({ audit: secretMask.maskDeep(entry) })}\n`),
      release: async () => {
        releasing = true;
        this.locked = false;
        // the session outlives the lock: other hosts' turns and the rollout's end read through it
        if (session && this.sessionProc === proc && this.options.sessions !== false) {
          // a session that dropped took the lock with it: the holder releases on a closed stdin
          await this.run('unlock', {}).catch((error: unknown) => {
            if (!(error instanceof HostUnreachableError)) throw error;
          });
          return;
        }
        session?.quiet();
        // the holder ends with the lock: nothing more may be sent to it (a later step opens anew)
        if (this.sessionProc === proc) {
          this.session = undefined;
          this.sessionProc = undefined;
        }
        proc.write('release\n');
        proc.end();
        // the holder answers once the lock is released; its exit may come later
        const result = await Promise.race([
          session?.finished ?? proc.exited.then(() => undefined),
          proc.exited.then(() => undefined),
        ]);
        if (result?.ok === false)
          throw new OperationError(
            `${this.host}: the lock holder ended with an error: ${result.message ?? 'unknown'}`,
          );
      },
    };
  }
}
