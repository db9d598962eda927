import {
  AgentIdentityError,
  ExitCode,
  OperationError,
  HandoffError,
  HostUnreachableError,
  LockHeldError,
  type LockHolder,
} from '../errors.js';
import type { Log } from '../log.js';
import type { ExecResult, RemoteProcess, Transport } from '../remote/transport.js';
import type { HeldLock, HostAgent, LocalArtifact, ShipResult } from './host-agent.js';

export type { HeldLock } from './host-agent.js';
import type { ReleaseInventory } from '../host/release-inventory.js';
import { encodePublish, type ReleaseFile } from '../host/release-files.js';
import type { EnvVars } from '../host/release-env.js';
import {
  decodeLine,
  relayEvent,
  type AgentOp,
  type AgentResultLine,
} from '../host/agent/protocol.js';
import { secretMask } from '../safe-text.js';
import { AgentSession, type CallArgs } from './session.js';
import type { AuditRead } from '../host/audit-read.js';
import type {
  HelloData,
  HostStatus,
  StartReport,
  StopReport,
  SwitchResult,
  VerifyOptions,
  VerifyReport,
} from '../host/agent/types.js';

/** The agent answered with a failure; carries the exit code it asked for. */
export class AgentError extends HandoffError {
  readonly host: string;
  readonly code: string;
  constructor(host: string, code: string, message: string, exit: number) {
    const known = Object.values(ExitCode) as number[];
    super(`${host}: ${message}`, (known.includes(exit) ? exit : ExitCode.failed) as ExitCode);
    this.host = host;
    this.code = code;
  }
}

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

/** publishing may pull images (compose): as long as an exec'd publish may take */
const PUBLISH_TIMEOUT = 15 * 60_000;

/** Orchestrator side of `deploy host …`: one method per operation, over any Transport. */
/** `{leaseMs: 5, allowDraining: true}` → `--lease-ms 5 --allow-draining` */
export function toFlags(args: CallArgs): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === false) continue;
    const flag = `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
    flags.push(...(value === true ? [flag] : [flag, String(value)]));
  }
  return flags;
}

export class AgentClient implements HostAgent {
  private session: AgentSession | undefined;
  private sessionProc: RemoteProcess | undefined;
  /** operations go through the session only while it holds the lock */
  private locked = false;
  /** the holder died while holding: nothing may run as if it still held the lock */
  private lockLost = false;

  constructor(
    private readonly transport: Transport,
    private readonly paths: AgentPaths,
    private readonly log: Log,
    private readonly identity?: AgentIdentity,
  ) {}

  get host(): string {
    return this.transport.host;
  }

  hello(): Promise<HelloData> {
    return this.call<HelloData>('hello', [], { timeoutMs: 15_000 });
  }

  nodeVersion(): Promise<ExecResult> {
    return this.transport.exec(['node', '-p', 'process.versions.node'], { timeoutMs: 15_000 });
  }

  /** through the session when one is open (no process start), else its own process */
  async status(): Promise<HostStatus> {
    if (this.session && !this.lockLost) return this.inSession<HostStatus>('status', {}, 15_000);
    return this.call<HostStatus>('status', [], { timeoutMs: 15_000 });
  }

  async publish(
    release: string,
    files: readonly ReleaseFile[] = [],
    env: EnvVars = {},
  ): Promise<void> {
    const document = encodePublish(files, env);
    const empty = files.length === 0 && Object.keys(env).length === 0;
    if (this.session && !this.lockLost)
      await this.inSession(
        'publish',
        empty ? { release } : { release, files: document },
        PUBLISH_TIMEOUT,
      );
    else
      await this.call('publish', ['--release', release], {
        stdin: document,
        timeoutMs: PUBLISH_TIMEOUT,
      });
  }

  async shipArtifact(
    release: string,
    artifact: LocalArtifact,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<ShipResult> {
    const ask = { release, sha256: artifact.sha256 };
    const state = await this.beside<{ present: boolean; upload?: string }>('artifact', ask);
    if (state.present || state.upload === undefined) return { uploaded: false, bytes: 0 };
    const upload = state.upload;
    onProgress?.(0, artifact.bytes);
    try {
      await this.transport.upload(artifact.path, upload, onProgress ? { onProgress } : {});
    } catch (error) {
      // the hidden upload is no release, but it is not left to fill the disk either
      await this.transport
        .exec(['rm', '-f', '--', upload], { timeoutMs: 30_000 })
        .catch(() => undefined);
      throw error;
    }
    await this.beside('artifact', { ...ask, file: upload }, PUBLISH_TIMEOUT);
    return { uploaded: true, bytes: artifact.bytes };
  }

  releases(): Promise<ReleaseInventory> {
    return this.call<ReleaseInventory>('releases', [], { timeoutMs: 60_000 });
  }

  prune(keep: number): Promise<{ removed: string[]; kept: string[] }> {
    return this.call('prune', ['--keep', String(keep)], { timeoutMs: 5 * 60_000 });
  }

  /** in the open session when there is one (prepare opened it), else its own process */
  private beside<T>(op: AgentOp, args: CallArgs, timeoutMs = 60_000): Promise<T> {
    if (this.session && !this.lockLost) return this.inSession<T>(op, args, timeoutMs);
    return this.call<T>(op, toFlags(args), { timeoutMs });
  }

  async drain(by: string, leaseMs: number, release: string): Promise<void> {
    // an operator's drain has no release: '' is no release id, and the agent refuses it
    await this.op('drain', { by, leaseMs, ...(release ? { release } : {}) });
  }

  async undrain(): Promise<void> {
    await this.op('undrain', {});
  }

  stop(release: string): Promise<StopReport> {
    return this.op<StopReport>('stop', { release });
  }

  switchTo(release: string): Promise<SwitchResult> {
    return this.op<SwitchResult>('switch', { release });
  }

  start(services?: readonly string[], options: { ifStopped?: boolean } = {}): Promise<StartReport> {
    return this.op<StartReport>('start', {
      ...(services ? { services: services.join(',') } : {}),
      ...(options.ifStopped ? { ifStopped: true } : {}),
    });
  }

  verify(options: VerifyOptions): Promise<VerifyReport> {
    const { successes, timeoutMs, allowDraining, releaseOptional } = options;
    return this.op<VerifyReport>(
      'verify',
      { successes, timeoutMs, allowDraining, ...(releaseOptional ? { releaseOptional } : {}) },
      timeoutMs + 30_000,
    );
  }

  /**
   * While this client holds the lock, operations run inside the holding agent
   * (a line on an open channel); otherwise each is its own `deploy host <op>`.
   */
  private async op<T>(op: AgentOp, args: CallArgs, timeoutMs?: number): Promise<T> {
    if (this.lockLost) {
      throw new HostUnreachableError(
        this.host,
        `the connection holding the host lock dropped; not running ${op} without the lock`,
      );
    }
    if (this.session && this.locked) return this.inSession<T>(op, args, timeoutMs);
    return this.call<T>(op, toFlags(args), timeoutMs === undefined ? {} : { timeoutMs });
  }

  private async inSession<T>(op: AgentOp, args: CallArgs, timeoutMs?: number): Promise<T> {
    if (!this.session) throw new HostUnreachableError(this.host, `no agent session for ${op}`);
    const r = await this.session.call(op, args, timeoutMs);
    if (!r.ok && r.error)
      throw new AgentError(this.host, r.error.code, r.error.message, r.error.exit);
    return r.data as T;
  }

  /** the host's audit.jsonl since `since` (ISO 8601), bounded by the agent (audit-read.ts) */
  readAudit(since?: string): Promise<AuditRead> {
    return this.call<AuditRead>('audit-read', since === undefined ? [] : ['--since', since], {
      timeoutMs: 60_000,
    });
  }

  releaseLock(force: boolean): Promise<{ released: boolean; reason?: string }> {
    return this.call('lock-release', force ? ['--force'] : [], { timeoutMs: 60_000 });
  }

  argv(op: AgentOp, args: readonly string[] = []): string[] {
    const identity = this.identity;
    return [
      `${this.paths.agent}/bin/deploy`,
      'host',
      op,
      '--config',
      this.paths.hostConfig,
      ...args,
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

  async call<T>(
    op: AgentOp,
    args: readonly string[] = [],
    options: { stdin?: string; timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<T> {
    const r = await this.transport.exec(this.argv(op, args), options);
    let result: AgentResultLine | undefined;
    for (const text of r.stdout.split('\n')) {
      const line = decodeLine(text);
      if (line?.type === 'event') {
        relayEvent(this.log, this.host, line);
      } else if (line?.type === 'result') {
        result = line;
      }
    }
    if (!result) throw this.noProtocol(op, r.code, r.stderr);
    if (!result.ok) throw this.refused(result.error);
    this.answered();
    return result.data as T;
  }

  /**
   * Start the agent that will hold this host's lock, without taking the lock
   * yet: done during prepare, so the lock step later costs a line, not a
   * process start on the host.
   */
  async openSession(): Promise<void> {
    if (this.sessionProc) return;
    const proc = this.transport.spawn(this.argv('lock-hold', ['--defer']));
    const lines = proc.lines[Symbol.asyncIterator]();
    await this.until(proc, lines, 'ready');
    this.attach(proc, lines);
  }

  /** End a session that never took the lock (the rollout stopped before this host). */
  close(): void {
    if (this.sessionProc && !this.locked) this.sessionProc.end();
  }

  /**
   * Take the host lock through a long-lived `lock-hold`: the agent holds it until
   * we release it or stdin closes, so a dropped SSH session releases it too.
   */
  async holdLock(what: string, message: string): Promise<HeldLock> {
    this.lockLost = false;
    if (this.session && this.sessionProc && !this.locked) {
      const proc = this.sessionProc;
      const r = await this.session.call('lock', { what, message });
      if (!r.ok && r.error) throw this.refused(r.error);
      this.locked = true;
      return this.held(proc);
    }
    const proc = this.transport.spawn(
      this.argv('lock-hold', ['--what', what, '--message', message]),
    );
    const lines = proc.lines[Symbol.asyncIterator]();
    await this.until(proc, lines, 'locked');
    this.attach(proc, lines);
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
      if (next.done) throw this.noProtocol('lock-hold', await proc.exited, '');
      const line = decodeLine(next.value);
      if (line?.type === want) {
        this.answered();
        return;
      }
      if (line?.type === 'result' && !line.ok) {
        proc.end();
        throw this.refused(line.error);
      }
    }
  }

  private refused(error: { code: string; message: string; exit: number }): Error {
    if (error.code === AgentIdentityError.code) return this.otherAgent(error.message);
    if (error.code === 'lock-held') {
      return new LockHeldError(`${this.host}:lock`, (error as { holder?: LockHolder }).holder);
    }
    return new AgentError(this.host, error.code, error.message, error.exit);
  }

  private otherAgent(what: string): AgentError {
    return new AgentError(
      this.host,
      AgentIdentityError.code,
      `${what}; run 'deploy setup --hosts ${this.host}'`,
      ExitCode.blocked,
    );
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

  private held(proc: RemoteProcess): HeldLock {
    const session = this.session;
    let releasing = false;
    const lost = new Promise<void>((resolve) => {
      void proc.exited.then(() => {
        if (releasing) return;
        this.log.emit({
          level: 'error',
          event: 'lock.lost',
          message: 'the host lock holder went away',
          host: this.host,
        });
        resolve();
      });
    });
    return {
      lost,
      // masked here: the host's agent never saw the rollout's secrets
      audit: (entry) => proc.write(`${JSON.stringify({ audit: secretMask.maskDeep(entry) })}\n`),
      release: async () => {
        releasing = true;
        this.locked = false;
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

  private noProtocol(op: AgentOp, code: number, stderr: string): HandoffError {
    const path = `${this.paths.agent}/bin/deploy`;
    if (code === 127 || /not found|No such file/i.test(stderr)) {
      return new AgentError(
        this.host,
        'no-agent',
        `no handoff agent at ${path}; run 'deploy setup --hosts ${this.host}'`,
        ExitCode.blocked,
      );
    }
    if (/unknown option '--expect-agent'/.test(stderr))
      return this.otherAgent(
        'the agent is older than this deploy (it does not know --expect-agent)',
      );
    const hint = stderr.trim().split('\n')[0]?.slice(0, 200) ?? '';
    return new AgentError(
      this.host,
      'garbage',
      `'deploy host ${op}' answered no handoff protocol result (exit ${code}${hint ? `: ${hint}` : ''}); run 'deploy setup --hosts ${this.host}'`,
      ExitCode.blocked,
    );
  }
}
