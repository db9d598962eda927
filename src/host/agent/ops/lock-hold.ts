import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { UsageError, messageOf } from '../../../errors.js';
import { appendAudit } from '../../audit.js';
import { readDrainMarker } from '../../drain-marker.js';
import type { HostLock } from '../../lock.js';
import { errorInfo } from '../error-info.js';
import { sendEvent, type AgentIO } from '../io.js';
import { LOCK_LOST, type AgentCall, type AgentReplyLine } from '../../../protocol/lines.js';
import { HEARTBEAT, isAgentOp, OPS } from '../../../protocol/ops.js';
import { sessionLock, type SessionLock } from './session-lock.js';

interface HoldOptions {
  readonly what: string;
  readonly message: string;
  readonly clock: Clock;
  readonly handle: CallHandler;
  readonly defer?: boolean;
  readonly silenceMs?: number;
}

/**
 * Hold the host lock for the orchestrator until it says `release` or stdin
 * closes — a dropped SSH session closes stdin, so the lock never outlives the
 * deploy that took it. An `unlock` call releases the lock and keeps the
 * session: the rollout reads through it after this host's turn (other hosts'
 * capacity, the end), and a `lock` call may take it again (a fleet rollback).
 * Audit lines arrive over stdin and are appended at once;
 * `call` lines run the deploy's operations here, under the lock, and are
 * answered with `reply` lines. With `defer` the session starts at once
 * (during prepare, off the critical path) and a `lock` call takes the lock
 * when the host's turn comes. An orchestrator that goes silent (frozen, or cut
 * off by a partition that keeps the SSH session up) ends the session after
 * `silenceMs` without a line while no call runs: the lock is released, the
 * drain marker stays with its lease.
 */
export async function lockHold(
  config: Config,
  io: AgentIO,
  options: HoldOptions,
): Promise<unknown> {
  const lock = sessionLock(config, options.clock);
  if (options.defer) io.send({ type: 'ready' });
  else
    io.send({
      type: 'locked',
      holder: { ...(await lock.take(options.what, options.message)).holder },
    });
  // `deploy lock release --force` (or a host shutdown) ends the holder cleanly
  let onSignal: (() => void) | undefined;
  const terminated = new Promise<'terminated'>((resolve) => {
    onSignal = () => resolve('terminated');
    process.once('SIGTERM', onSignal);
    process.once('SIGHUP', onSignal);
  });
  const session = new HoldSession(config, io, options, lock);
  let reason = 'stdin closed';
  let released = false;
  try {
    reason = await session.read(terminated);
  } finally {
    await session.settle();
    if (onSignal) {
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
    }
    // ended here, not by the orchestrator closing stdin: the process must end with the session
    io.endInput?.();
    await session.audits;
    released = lock.held !== undefined;
    await lock.held?.release();
  }
  return { released, reason };
}

/** One `lock-hold` session once it started: what it reads, runs and queues. */
class HoldSession {
  private readonly clock: Clock;
  private readonly silenceMs: number;
  // read-only calls run beside the others (a rollout confirms while it awaits the balancer);
  // when the session ends they are cut short, so the process and the lock end with it
  private readonly reads = new Set<Promise<void>>();
  private readonly ending = new AbortController();
  private readonly heard: { at: number; busy: boolean };
  // audit lines are appended in the order they came, beside the calls: a step's line no
  // longer holds up the next step's call; the lock goes, and the session ends, after them
  audits = Promise.resolve();
  // calls that change the host run one at a time, in the order they came, beside the reading:
  // while one hangs, the end of stdin, `release`, a signal or a lost lock still end the
  // session — and abort it — instead of waiting on it (issue 34)
  private changes = Promise.resolve();
  private changing = 0;
  private failChange: (error: unknown) => void = () => undefined;
  private readonly changeFailed: Promise<never>;

  constructor(
    private readonly config: Config,
    private readonly io: AgentIO,
    private readonly options: HoldOptions,
    private readonly lock: SessionLock,
  ) {
    this.clock = options.clock;
    this.silenceMs = options.silenceMs ?? HEARTBEAT.silenceMs;
    this.heard = { at: this.clock.now(), busy: false };
    this.changeFailed = new Promise<never>((_, reject) => (this.failChange = reject));
    this.changeFailed.catch(() => undefined);
  }

  /** Read the orchestrator's lines until the session ends; resolves with why it ended. */
  async read(terminated: Promise<'terminated'>): Promise<string> {
    const lines = this.io.input[Symbol.asyncIterator]();
    const silent = silence(this.clock, this.silenceMs, this.heard, this.ending.signal);
    for (;;) {
      const next = await Promise.race([
        lines.next(),
        this.lock.compromised,
        terminated,
        silent,
        this.changeFailed,
      ]);
      if (next === 'terminated') return 'terminated';
      if (next === 'silent') {
        // its own line comes after those the orchestrator sent
        await this.audits;
        await endSilent(this.config, this.io, this.silenceMs, this.lock.held, this.clock.now());
        return 'silence';
      }
      this.heard.at = this.clock.now();
      if (next === 'compromised') {
        const held = this.lock.held;
        const why = (held?.signal.reason as Error | undefined)?.message ?? 'lost the host lock';
        sendEvent(this.io, 'error', 'lock.compromised', why);
        throw held?.signal.reason ?? new Error(why);
      }
      if (next.done) return 'stdin closed';
      const text = next.value.trim();
      if (text === 'release') return 'released';
      if (text.startsWith('{')) this.dispatch(text);
    }
  }

  /** the session ends: what runs is cut short, and waited for */
  async settle(): Promise<void> {
    this.ending.abort();
    await Promise.allSettled([...this.reads, this.changes]);
  }

  /** a read runs beside the others, yet after the changes sent before it, as it always did */
  private dispatch(text: string): void {
    const run = (): Promise<void> => onLine(this.io, text, this.handle, this.queueAudit);
    if (!isReadOnly(text)) this.change(run);
    else if (this.changing > 0) this.beside(this.changes.then(run));
    else this.beside(run());
  }

  private beside(work: Promise<void>): void {
    const done = work.finally(() => this.reads.delete(done));
    this.reads.add(done);
  }

  private change(run: () => Promise<void>): void {
    this.changing += 1;
    // the orchestrator waits for this answer: its silence counts from the answer on
    this.heard.busy = true;
    this.changes = this.changes
      .then(run)
      .catch(this.failChange)
      .finally(() => {
        this.changing -= 1;
        Object.assign(this.heard, { at: this.clock.now(), busy: this.changing > 0 });
      });
  }

  private readonly queueAudit = (entry: unknown): void => {
    this.audits = this.audits.then(() => audit(this.config, this.io, entry));
  };

  private readonly handle = async (call: AgentCall): Promise<AgentReplyLine> => {
    if (call.op === 'unlock') await this.audits;
    if (isAgentOp(call.op) && OPS[call.op].channel === 'holder') return this.lockCall(call);
    // before the lock only what does not touch what runs (status, publishing a release and
    // its artifact: the live release is never rewritten), what the table calls `session`
    const held = this.lock.held;
    if (!held && (!isAgentOp(call.op) || OPS[call.op].channel !== 'session')) {
      const error = new UsageError(`${call.op} needs the host lock: send a lock call first`);
      return { type: 'reply', id: call.id, ok: false, error: errorInfo(error) };
    }
    // a lock lost to staleness (a frozen holder) aborts what runs under it: another may act now
    const signal = this.ending.signal;
    const reply = await this.options.handle(
      call,
      held ? AbortSignal.any([signal, held.signal]) : signal,
    );
    // and the orchestrator hears why, before the session ends: it may take the lock again
    if (reply.ok || !held?.signal.aborted) return reply;
    return { ...reply, error: { ...reply.error, code: LOCK_LOST } };
  };

  private async lockCall(call: AgentCall): Promise<AgentReplyLine> {
    try {
      if (call.op === 'unlock')
        return {
          type: 'reply',
          id: call.id,
          ok: true,
          data: { released: await this.lock.untake() },
        };
      const args = call.args as { what?: string; message?: string };
      const { what, message } = this.options;
      const held = await this.lock.take(args.what ?? what, args.message ?? message);
      return { type: 'reply', id: call.id, ok: true, data: { holder: held.holder } };
    } catch (error) {
      return { type: 'reply', id: call.id, ok: false, error: errorInfo(error) };
    }
  }
}

/** Resolves once nothing was heard for `silenceMs` while no call ran; never, once `ending` aborts. */
async function silence(
  clock: Clock,
  silenceMs: number,
  heard: { at: number; busy: boolean },
  ending: AbortSignal,
): Promise<'silent'> {
  const every = Math.max(10, Math.min(1000, Math.floor(silenceMs / 4)));
  for (;;) {
    try {
      await clock.sleep(every, ending);
    } catch {
      return new Promise<never>(() => undefined);
    }
    if (!heard.busy && clock.now() - heard.at >= silenceMs) return 'silent';
  }
}

/** Say why the session ends, on the channel (if anyone still reads it) and in audit.jsonl. */
async function endSilent(
  config: Config,
  io: AgentIO,
  silenceMs: number,
  lock: HostLock | undefined,
  now: number,
): Promise<void> {
  const message = `no word from the orchestrator for ${Math.round(silenceMs / 1000)}s: ending the session${lock ? ', releasing the host lock; a drain marker stays until its lease ends, then the watchdog finishes the job' : ''}`;
  sendEvent(io, 'error', 'session.silent', message);
  if (!lock) return;
  const marker = await readDrainMarker(config.host.state).catch(() => undefined);
  await audit(config, io, {
    release: marker?.value?.release ?? '-',
    step: 'session.silent',
    start: new Date(now).toISOString(),
    duration_ms: 0,
    result: 'failed',
    who: `${lock.holder.what} session (${lock.holder.message ?? 'no message'})`,
    detail: message,
  });
}

/** Runs one operation of a session; its errors become the reply. */
export type CallHandler = (call: AgentCall, signal: AbortSignal) => Promise<AgentReplyLine>;

/** a call line whose operation changes nothing on the host (the table's `readOnly`) */
function isReadOnly(text: string): boolean {
  try {
    const op = (JSON.parse(text) as { call?: { op?: unknown } }).call?.op;
    return typeof op === 'string' && isAgentOp(op) && OPS[op].readOnly;
  } catch {
    return false;
  }
}

async function onLine(
  io: AgentIO,
  text: string,
  handle: (call: AgentCall) => Promise<AgentReplyLine>,
  queueAudit: (entry: unknown) => void,
): Promise<void> {
  let parsed: { audit?: unknown; call?: AgentCall };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    sendEvent(io, 'warn', 'session', 'ignored a line that is not JSON');
    return;
  }
  if (parsed.call && typeof parsed.call.id === 'number') {
    io.send(await handle(parsed.call));
    return;
  }
  queueAudit(parsed.audit);
}

async function audit(config: Config, io: AgentIO, entry: unknown): Promise<void> {
  try {
    if (typeof entry === 'object' && entry !== null) {
      await appendAudit(config.host.root, entry as Record<string, unknown>);
    }
  } catch (error) {
    // an audit line must never cost the lock
    sendEvent(io, 'warn', 'audit', `could not append an audit line: ${messageOf(error)}`);
  }
}
