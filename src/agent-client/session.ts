import { HostUnreachableError, OperationError } from '../errors.js';
import type { Log } from '../log.js';
import type { CallArgs } from '../protocol/args.js';
import { decodeLine, relayEvent, type AgentCall } from '../protocol/lines.js';
import { HEARTBEAT } from '../protocol/ops.js';
import type { RemoteProcess } from '../remote/transport.js';

/** the hard bound of one step inside a session, when the table gives none */
const DEFAULT_TIMEOUT = 15 * 60_000;

type SessionOp = AgentCall['op'];

/** How a holder ended: its error, or why it stopped holding (released, silence, terminated…). */
export interface HolderResult {
  readonly ok: boolean;
  readonly message?: string;
  readonly reason?: string;
}

function reasonOf(data: unknown): { reason?: string } {
  const reason = (data as { reason?: unknown } | null | undefined)?.reason;
  return typeof reason === 'string' ? { reason } : {};
}

interface Pending {
  readonly op: SessionOp;
  resolve(line: {
    ok: boolean;
    data?: unknown;
    error?: { code: string; message: string; exit: number };
  }): void;
  reject(error: Error): void;
}

/**
 * The orchestrator's side of a holding `lock-hold`: operations go down its
 * stdin as `call` lines and come back as `reply` lines, so a deploy step costs
 * a line on an open channel instead of a process start on the host. While it
 * is open it speaks whatever the rollout waits for, lines at most 1.5 ×
 * HEARTBEAT.everyMs apart (a `heartbeat` when no call went down): the holder
 * ends the session after HEARTBEAT.silenceMs without a line.
 */
export class AgentSession {
  private next = 1;
  private readonly pending = new Map<number, Pending>();
  private gone = false;
  private readonly beat: ReturnType<typeof setInterval>;
  /** half-periods of the beat since the last line went down (any call resets it) */
  private silentHalves = 0;
  private ended: (result?: HolderResult) => void = () => undefined;
  /**
   * The holder's last line, its result (it writes it once the lock is released),
   * or undefined when its output ended without one: releasing need not wait for
   * the process to exit.
   */
  readonly finished = new Promise<HolderResult | undefined>((resolve) => (this.ended = resolve));

  constructor(
    private readonly host: string,
    private readonly proc: RemoteProcess,
    lines: AsyncIterator<string>,
    private readonly log: Log,
    everyMs: number = HEARTBEAT.everyMs,
  ) {
    // any line resets the holder's silence. Looked at every half of everyMs, a beat goes
    // once nothing went down for three halves: no two lines are more than 1.5 × everyMs
    // apart (7.5 s, half of HEARTBEAT.silenceMs: an orchestrator busy for seconds is not
    // taken for a frozen one), and calls at least every everyMs need no beat at all: at
    // 500 hosts the lease's renewals and the capacity guard's reads speak every 5 s, and
    // a beat beside them was a fifth of the rollout's calls. Its answer matters not: a
    // lost session fails the next real call, and says why
    this.beat = setInterval(() => {
      this.silentHalves += 1;
      if (this.silentHalves >= 3)
        void this.call('heartbeat', {}, HEARTBEAT.silenceMs).catch(() => undefined);
    }, everyMs / 2);
    this.beat.unref();
    void this.read(lines);
    void proc.exited.then(() => this.fail());
  }

  call(
    op: SessionOp,
    args: CallArgs,
    timeoutMs = DEFAULT_TIMEOUT,
  ): Promise<{
    ok: boolean;
    data?: unknown;
    error?: { code: string; message: string; exit: number };
  }> {
    if (this.gone) return Promise.reject(this.lost(op));
    const id = this.next++;
    return new Promise((resolve, reject) => {
      // a hung step (a stop that never returns) must not hang the rollout with the host drained
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new OperationError(
            `${this.host}: ${op} did not answer within ${Math.round(timeoutMs / 1000)}s`,
          ),
        );
      }, timeoutMs);
      const settle =
        <T>(fn: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          fn(value);
        };
      this.pending.set(id, { op, resolve: settle(resolve), reject: settle(reject) });
      this.silentHalves = 0;
      this.proc.write(`${JSON.stringify({ call: { id, op, args } })}\n`);
    });
  }

  private async read(lines: AsyncIterator<string>): Promise<void> {
    try {
      for (let n = await lines.next(); !n.done; n = await lines.next()) {
        const line = decodeLine(n.value);
        if (line?.type === 'reply') {
          const p = this.pending.get(line.id);
          this.pending.delete(line.id);
          p?.resolve(line.ok ? { ok: true, data: line.data } : { ok: false, error: line.error });
        } else if (line?.type === 'event') {
          relayEvent(this.log, this.host, line);
        } else if (line?.type === 'result') {
          this.ended(
            line.ok
              ? { ok: true, ...reasonOf(line.data) }
              : { ok: false, message: line.error.message },
          );
        }
      }
    } finally {
      this.fail();
      this.ended();
    }
  }

  /** No more heartbeats: the session is being ended (released, or closed before the lock). */
  quiet(): void {
    clearInterval(this.beat);
  }

  private fail(): void {
    this.gone = true;
    clearInterval(this.beat);
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(this.lost(p.op));
    }
  }

  private lost(op: SessionOp): Error {
    return new HostUnreachableError(
      this.host,
      `the connection holding the host lock dropped during ${op}; the agent released the lock`,
    );
  }
}
