import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { LockHeldError, UsageError, messageOf } from '../../../errors.js';
import { appendAudit } from '../../audit.js';
import { readDrainMarker } from '../../drain-marker.js';
import { warmHttpChecks } from '../../checks/warm.js';
import { acquireHostLock, type HostLock } from '../../lock.js';
import { announceLockIntent, withdrawLockIntent } from '../../lock-intent.js';
import { errorInfo } from '../error-info.js';
import { sendEvent, type AgentIO } from '../io.js';
import { LOCK_LOST, type AgentCall, type AgentReplyLine } from '../../../protocol/lines.js';
import { HEARTBEAT, isAgentOp, OPS } from '../../../protocol/ops.js';

/** A watchdog tick holds the lock for seconds: wait it out rather than fail a deploy. */
const WAIT_FOR_WATCHDOG = 60_000;

async function acquire(
  config: Config,
  what: string,
  message: string,
  clock: Clock,
): Promise<HostLock> {
  const started = clock.now();
  let announced = false;
  try {
    for (;;) {
      try {
        return await acquireHostLock(config.host.lock, { what, message, clock });
      } catch (error) {
        const holder = error instanceof LockHeldError ? error.holder : undefined;
        // no holder yet = someone is between taking the lock and writing who they are
        const brief = error instanceof LockHeldError && (!holder || holder.what === 'watchdog');
        if (!brief || clock.now() - started > WAIT_FOR_WATCHDOG) throw error;
        if (!announced) await announceLockIntent(config.host.state, what, clock.now());
        announced = true;
        await clock.sleep(100);
      }
    }
  } finally {
    if (announced) await withdrawLockIntent(config.host.state);
  }
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
  options: {
    what: string;
    message: string;
    clock: Clock;
    handle: CallHandler;
    defer?: boolean;
    silenceMs?: number;
  },
): Promise<unknown> {
  const { clock } = options;
  const silenceMs = options.silenceMs ?? HEARTBEAT.silenceMs;
  let lock: HostLock | undefined;
  // armed by each take: resolves when the lock held since then goes stale under us
  let onCompromised: () => void = () => undefined;
  let compromised = new Promise<'compromised'>(() => undefined);
  const take = async (what: string, message: string): Promise<HostLock> => {
    if (lock) return lock;
    const taken = await acquire(config, what, message, options.clock);
    compromised = new Promise((resolve) => (onCompromised = () => resolve('compromised')));
    if (taken.signal.aborted) onCompromised();
    taken.signal.addEventListener('abort', onCompromised, { once: true });
    lock = taken;
    return taken;
  };
  // the host's turn is over: the lock goes, the session stays for the rest of the rollout
  const untake = async (): Promise<boolean> => {
    const held = lock;
    if (!held) return false;
    held.signal.removeEventListener('abort', onCompromised);
    compromised = new Promise(() => undefined);
    lock = undefined;
    await held.release();
    return true;
  };
  if (options.defer) io.send({ type: 'ready' });
  else
    io.send({ type: 'locked', holder: { ...(await take(options.what, options.message)).holder } });
  let reason = 'stdin closed';
  let released = false;
  const lines = io.input[Symbol.asyncIterator]();
  // `deploy lock release --force` (or a host shutdown) ends the holder cleanly
  let onSignal: (() => void) | undefined;
  const terminated = new Promise<'terminated'>((resolve) => {
    onSignal = () => resolve('terminated');
    process.once('SIGTERM', onSignal);
    process.once('SIGHUP', onSignal);
  });
  // read-only calls run beside the others (a rollout confirms while it awaits the balancer);
  // when the session ends they are cut short, so the process and the lock end with it
  const reads = new Set<Promise<void>>();
  const beside = (work: Promise<void>): void => {
    const done = work.finally(() => reads.delete(done));
    reads.add(done);
  };
  const ending = new AbortController();
  const heard = { at: clock.now(), busy: false };
  const silent = silence(clock, silenceMs, heard, ending.signal);
  // audit lines are appended in the order they came, beside the calls: a step's line no
  // longer holds up the next step's call; the lock goes, and the session ends, after them
  let audits = Promise.resolve();
  const queueAudit = (entry: unknown): void => {
    audits = audits.then(() => audit(config, io, entry));
  };
  const handle = async (call: AgentCall): Promise<AgentReplyLine> => {
    if (call.op === 'unlock') await audits;
    if (call.op === 'lock' || call.op === 'unlock') {
      try {
        if (call.op === 'unlock')
          return { type: 'reply', id: call.id, ok: true, data: { released: await untake() } };
        const args = call.args as { what?: string; message?: string };
        const held = await take(args.what ?? options.what, args.message ?? options.message);
        return { type: 'reply', id: call.id, ok: true, data: { holder: held.holder } };
      } catch (error) {
        return { type: 'reply', id: call.id, ok: false, error: errorInfo(error) };
      }
    }
    // before the lock only what does not touch what runs (status, publishing a release and
    // its artifact: the live release is never rewritten), what the table calls `session`
    if (!lock && (!isAgentOp(call.op) || OPS[call.op].channel !== 'session')) {
      const error = new UsageError(`${call.op} needs the host lock: send a lock call first`);
      return { type: 'reply', id: call.id, ok: false, error: errorInfo(error) };
    }
    // a lock lost to staleness (a frozen holder) aborts what runs under it: another may act now
    const held = lock;
    const reply = await options.handle(
      call,
      held ? AbortSignal.any([ending.signal, held.signal]) : ending.signal,
    );
    // drained: the rollout now waits seconds for the balancer, verify's HTTP client warms meanwhile
    if (call.op === 'drain' && reply.ok) beside(warmHttpChecks(config, clock, ending.signal));
    // and the orchestrator hears why, before the session ends: it may take the lock again
    if (reply.ok || !held?.signal.aborted) return reply;
    return { ...reply, error: { ...reply.error, code: LOCK_LOST } };
  };
  // calls that change the host run one at a time, in the order they came, beside the reading:
  // while one hangs, the end of stdin, `release`, a signal or a lost lock still end the
  // session — and abort it — instead of waiting on it (issue 34)
  let changes = Promise.resolve();
  let changing = 0;
  let failChange: (error: unknown) => void = () => undefined;
  const changeFailed = new Promise<never>((_, reject) => (failChange = reject));
  changeFailed.catch(() => undefined);
  const change = (text: string): void => {
    changing += 1;
    // the orchestrator waits for this answer: its silence counts from the answer on
    heard.busy = true;
    changes = changes
      .then(() => onLine(io, text, handle, queueAudit))
      .catch(failChange)
      .finally(() => {
        changing -= 1;
        Object.assign(heard, { at: clock.now(), busy: changing > 0 });
      });
  };
  try {
    for (;;) {
      const next = await Promise.race([
        lines.next(),
        compromised,
        terminated,
        silent,
        changeFailed,
      ]);
      if (next === 'terminated') {
        reason = 'terminated';
        break;
      }
      if (next === 'silent') {
        reason = 'silence';
        // its own line comes after those the orchestrator sent
        await audits;
        await endSilent(config, io, silenceMs, lock, clock.now());
        break;
      }
      heard.at = clock.now();
      if (next === 'compromised') {
        const why = (lock?.signal.reason as Error | undefined)?.message ?? 'lost the host lock';
        sendEvent(io, 'error', 'lock.compromised', why);
        throw lock?.signal.reason ?? new Error(why);
      }
      if (next.done) break;
      const text = next.value.trim();
      if (text === 'release') {
        reason = 'released';
        break;
      }
      if (!text.startsWith('{')) continue;
      // a read runs beside the others, yet after the changes sent before it, as it always did
      if (!isReadOnly(text)) change(text);
      else if (changing > 0) beside(changes.then(() => onLine(io, text, handle, queueAudit)));
      else beside(onLine(io, text, handle, queueAudit));
    }
  } finally {
    ending.abort();
    await Promise.allSettled([...reads, changes]);
    if (onSignal) {
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
    }
    // ended here, not by the orchestrator closing stdin: the process must end with the session
    io.endInput?.();
    await audits;
    released = lock !== undefined;
    await lock?.release();
  }
  return { released, reason };
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
