import { HandoffError } from '../errors.js';
import type { Log } from '../log.js';
import type { WindowCounts } from './kit/counts.js';
import { countsOf } from './kit/counts.js';
import { BACKEND_OWN, totalOf } from './kit/total.js';
import { readOrUnread, type CountWindow, type EvidenceSource } from './kit/source.js';
import type { Receipt, ReceiptFigures } from './kit/figures.js';

/**
 * The loss receipt: what the balancer saw during each host's window (its
 * lock to its unlock: drain, stop, start, back in rotation, confirmed) and
 * during the whole rollout. A window whose counters reset or could not be
 * read says so, never a zero.
 */

export function figuresOf(w: WindowCounts): ReceiptFigures {
  const c = countsOf(w);
  return {
    requests: c.requests,
    failed: c.failed,
    ...(c.kinds !== undefined && { kinds: c.kinds }),
    ...(w.kind === 'reset' && { reset: w.reason }),
    ...(w.kind === 'unread' && { unread: w.reason }),
  };
}

/**
 * 27823 → `27 823`: a count's digits by threes. Not toLocaleString: Intl's first
 * use costs about 20 ms, and the first receipt line is on a host's path to its unlock.
 */
const n = (x: number): string =>
  Number.isInteger(x)
    ? String(x).replace(/\B(?=(\d{3})+$)/g, ' ')
    : x.toLocaleString('en-US').replace(/,/g, ' ');

function phrase(f: ReceiptFigures): string {
  const bound = f.reset !== undefined ? 'at least ' : '';
  return `${bound}${n(f.failed)} failed of ${bound}${n(f.requests)} requests`;
}

export function hostReceiptLine(source: string, host: string, f: ReceiptFigures): string {
  if (f.unread !== undefined)
    return `${source} could not count the requests to ${host} during its deploy (${f.unread})`;
  const reset = f.reset !== undefined ? `; ${f.reset}` : '';
  return `${source} saw ${phrase(f)} to ${host} during its deploy${reset}`;
}

/** `uncounted`: a share no source counted is named, and the figures are never "in all" then */
export function totalReceiptLine(
  source: string,
  f: ReceiptFigures,
  uncounted: readonly string[] = [],
  note = '',
): string {
  const missing = uncounted.length > 0 ? `; not counted: ${uncounted.join(', ')}` : '';
  if (f.unread !== undefined)
    return `${source} could not count the requests during the rollout (${f.unread})${missing}`;
  const reset = f.reset !== undefined ? `; ${f.reset}` : '';
  const all = missing === '' ? ' in all' : '';
  const covers = note === '' ? '' : ` (${note})`;
  return `${source} saw ${phrase(f)}${all} during the rollout${reset}${covers}${missing}`;
}

/** The rollout's receipt, with what it covers when the source says (a provider's per-minute figures) and what it could not count. */
export function receiptLine(r: Receipt): string {
  return totalReceiptLine(r.source, r.total, r.uncounted, r.note);
}

async function tryOpen(
  source: EvidenceSource,
  hosts: readonly string[],
): Promise<CountWindow | string> {
  try {
    return await source.open(hosts);
  } catch (error) {
    if (!(error instanceof HandoffError)) throw error;
    return error.message.split('\n')[0] ?? '';
  }
}

/** One host's window, as its handshake sees it (ReceiptRecorder.host). */
export interface HostWindow {
  /** resolves once the window is open: nothing on the host may change before */
  readonly opened: () => Promise<void>;
  /**
   * Reads the counters now, beside the handshake's last step (confirm's last
   * pass), for the window's end: `keep()` it once nothing more will change on
   * the host, and close answers from it. A read not kept (the confirm failed,
   * a rollback follows) is dropped: close reads again.
   */
  readonly readAhead: () => { keep(): void };
  /** ends the window and answers its line (once; later calls answer the same) */
  readonly close: () => Promise<string>;
}

/** A read of a window's end: what it counted, and how long the read took. */
interface EndRead {
  readonly counts: WindowCounts;
  readonly readMs: number;
}

export class ReceiptRecorder {
  private rollout: CountWindow | string = 'not opened';
  private readonly hosts: ({ host: string } & ReceiptFigures)[] = [];

  constructor(
    private readonly source: EvidenceSource,
    private readonly all: readonly string[],
    private readonly log: Log,
  ) {}

  async begin(): Promise<void> {
    this.rollout = await tryOpen(this.source, this.all);
  }

  /**
   * Run one host's handshake inside its own window. The window opens beside
   * the handshake's first step (the lock): the handshake awaits `opened`
   * before it changes anything on the host, so the window still holds its
   * drain. `close` ends it — the handshake closes it as the host is back in
   * rotation, before its unlock, so the figures go into the host's audit with
   * the lock's holder; a handshake that never gets there is closed after it.
   * The end's read may be taken ahead, beside confirm's last pass
   * (`readAhead`): kept only when that pass passed, so a window whose host
   * rolls back still ends after the rollback. `close` answers the receipt's line.
   */
  async host<T>(host: string, run: (window: HostWindow) => Promise<T>): Promise<T> {
    const openAt = performance.now();
    // settled either way: an unexpected error is thrown where the window is awaited
    const opening = tryOpen(this.source, [host]).then(
      (window) => ({ window, openMs: performance.now() - openAt }),
      (error: unknown) => ({ error }),
    );
    const opened = async (): Promise<{ window: CountWindow | string; openMs: number }> => {
      const o = await opening;
      if ('error' in o) throw o.error;
      return o;
    };
    const end = (): Promise<EndRead> => opened().then(({ window }) => this.readEnd(host, window));
    let kept: Promise<EndRead> | undefined;
    const readAhead = (): { keep(): void } => {
      const reading = end();
      // a read that is never kept is never awaited; one kept rejects where close awaits it
      reading.catch(() => undefined);
      return { keep: () => void (kept ??= reading) };
    };
    let closed: Promise<string> | undefined;
    const close = (): Promise<string> =>
      (closed ??= opened().then(async ({ openMs }) =>
        this.close(host, openMs, await (kept ?? end())),
      ));
    try {
      return await run({ opened: () => opened().then(() => undefined), readAhead, close });
    } finally {
      await close();
    }
  }

  /** the window's end: its counts for this host (a window that never opened is unread) */
  private async readEnd(host: string, window: CountWindow | string): Promise<EndRead> {
    const readAt = performance.now();
    const counts: WindowCounts =
      typeof window === 'string'
        ? { kind: 'unread', reason: window }
        : ((await readOrUnread(window, [host])).get(host) ?? {
            kind: 'unread',
            reason: `no counts for ${host}`,
          });
    return { counts, readMs: performance.now() - readAt };
  }

  private close(host: string, openMs: number, end: EndRead): string {
    const f = figuresOf(end.counts);
    this.hosts.push({ host, ...f });
    const message = hostReceiptLine(this.source.label, host, f);
    // what the receipt cost this host: its two reads of the counters
    const readMs = Math.round(openMs + end.readMs);
    this.log.emit({ level: 'info', event: 'receipt', host, message, fields: { ...f, readMs } });
    return message;
  }

  async finish(): Promise<Receipt> {
    const w: WindowCounts =
      typeof this.rollout === 'string'
        ? { kind: 'unread', reason: this.rollout }
        : totalOf(await readOrUnread(this.rollout, [...this.all, BACKEND_OWN]));
    const total = figuresOf(w);
    this.log.emit({
      level: 'info',
      event: 'receipt',
      message: totalReceiptLine(this.source.label, total),
      fields: { ...total },
    });
    return { source: this.source.label, hosts: this.hosts, total };
  }
}
