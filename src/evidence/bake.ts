import type { Clock } from '../clock.js';
import { LATENCY_FLOOR_MS } from '../config/normalize-canary.js';
import type { JudgementConfig } from '../config/types.js';
import { formatMs } from '../timing/duration.js';
import { addWindows, countsOf, type WindowCounts } from './kit/counts.js';
import { judgeAtEnd, judgeDuringBake, latencyFloorFor, settle, type Side } from './canary-rule.js';
import { HandoffError } from '../errors.js';
import { readOrUnread, type CountWindow, type EvidenceSource } from './kit/source.js';

export interface BakeProgress {
  readonly elapsedMs: number;
  readonly leftMs: number;
  readonly canary: Side;
  readonly baseline: Side;
  /** the latest read's problem, when it could not be read */
  readonly unread?: string;
  /** how long this look's read took (what a bake costs beside its duration) */
  readonly readMs: number;
  /** counters restarted in the window (a reload, a restart): the counts are since then */
  readonly reset?: string;
}

export interface BakeOutcome {
  readonly passed: boolean;
  /** one line with the numbers */
  readonly reason: string;
  readonly canary: Side;
  readonly baseline: Side;
  /** the bake ended early on a conclusive failure */
  readonly early: boolean;
  readonly elapsedMs: number;
  /** counters restarted in the window: judged on the counts since then, and the reason says so */
  readonly reset?: string;
}

export interface BakeOptions {
  readonly source: EvidenceSource;
  /** the hosts judged */
  readonly canary: readonly string[];
  /**
   * the hosts compared with, over the same window; or, for a bake after the
   * canary and the watch, a rate measured before the rollout
   */
  readonly baseline: readonly string[] | Side;
  readonly durationMs: number;
  readonly judgement: JudgementConfig;
  readonly clock: Clock;
  readonly onProgress?: (p: BakeProgress) => void;
  readonly signal?: AbortSignal;
}

/** the windows of some hosts as one side; an unread host makes the side unread */
export function sideOf(
  counts: ReadonlyMap<string, WindowCounts>,
  hosts: readonly string[],
): {
  side: Side;
  unread?: string;
  /** a host's counters restarted in the window: the side is counted since then */
  reset?: string;
} {
  let sum: WindowCounts = { kind: 'counted', counts: { requests: 0, failed: 0 } };
  for (const h of hosts)
    sum = addWindows(sum, counts.get(h) ?? { kind: 'unread', reason: `no counts for ${h}` });
  const c = countsOf(sum);
  const side: Side = {
    errors: c.failed,
    requests: c.requests,
    ...(c.latencyMs !== undefined && { latencyMs: c.latencyMs }),
  };
  if (sum.kind === 'unread') return { side, unread: sum.reason };
  return sum.kind === 'reset' ? { side, reset: sum.reason } : { side };
}

/** What the bake has read so far: the latest counted sides, or why the latest look could not count. */
interface Reading {
  canary: Side;
  baseline: Side;
  unread: string | undefined;
  // once seen, said to the end: the counts before the restart are gone for this window
  reset: string | undefined;
}

/**
 * One bake: the window opens now, is read every `poll`, and judged on each
 * read (a conclusive failure ends it at once) and at the end. A read that
 * fails is retried at the next look; if none succeeded by the end, or the
 * last did not, the verdict is inconclusive, saying why — never a pass.
 */
export async function bake(o: BakeOptions): Promise<BakeOutcome> {
  const { judgement: j, clock } = o;
  const rule = {
    margin: j.margin,
    minRequests: j.minRequests,
    ...(j.latencyMargin !== undefined && { latencyMargin: j.latencyMargin }),
    latencyFloorMs: latencyFloorFor(o.source.kind, j.latencyFloor ?? LATENCY_FLOOR_MS),
  };
  const started = clock.now();
  const look = await looker(o);
  const looks = Math.max(1, Math.ceil(o.durationMs / j.poll));
  const r: Reading = {
    canary: { errors: 0, requests: 0 },
    baseline: Array.isArray(o.baseline) ? { errors: 0, requests: 0 } : (o.baseline as Side),
    unread: 'not read yet',
    reset: undefined,
  };
  for (;;) {
    const left = o.durationMs - (clock.now() - started);
    if (left <= 0) break;
    await clock.sleep(Math.min(j.poll, left), o.signal);
    const lookAt = performance.now();
    await look(r);
    const readMs = performance.now() - lookAt;
    const now = clock.now() - started;
    o.onProgress?.({
      readMs,
      elapsedMs: now,
      leftMs: Math.max(0, o.durationMs - now),
      canary: r.canary,
      baseline: r.baseline,
      ...(r.unread !== undefined && { unread: r.unread }),
      ...(r.reset !== undefined && { reset: r.reset }),
    });
    if (r.unread !== undefined) continue;
    const early = judgeDuringBake(r.canary, r.baseline, rule, looks);
    if (early.verdict === 'fail')
      return outcome(r, { passed: false, reason: early.reason }, true, now);
  }
  const elapsedMs = clock.now() - started;
  const end =
    r.unread !== undefined
      ? {
          verdict: 'inconclusive' as const,
          reason: `the counts could not be read at the end of the ${formatMs(o.durationMs)} bake: ${r.unread}`,
        }
      : judgeAtEnd(r.canary, r.baseline, rule);
  return outcome(r, settle(end, j.inconclusive), false, elapsedMs);
}

/**
 * The window opened, and one look at it: a read that counts every host
 * updates the reading; one that does not says why. A source that cannot even
 * open is retried at every look, like a failed read.
 */
async function looker(o: BakeOptions): Promise<(r: Reading) => Promise<void>> {
  const baselineHosts: readonly string[] = Array.isArray(o.baseline) ? o.baseline : [];
  const hosts = [...o.canary, ...baselineHosts];
  const open = (): Promise<CountWindow | string> =>
    o.source.open(hosts, o.signal).catch((error: unknown) => {
      if (!(error instanceof HandoffError)) throw error;
      return error.message.split('\n')[0] ?? '';
    });
  let window = await open();
  return async (r) => {
    if (typeof window === 'string') window = await open();
    if (typeof window === 'string') {
      r.unread = window;
      return;
    }
    const counts = await readOrUnread(window, hosts, o.signal);
    const c = sideOf(counts, o.canary);
    const b = Array.isArray(o.baseline) ? sideOf(counts, o.baseline) : { side: r.baseline };
    r.unread = c.unread ?? b.unread;
    if (r.unread === undefined) {
      r.canary = c.side;
      r.baseline = b.side;
      r.reset = c.reset ?? b.reset ?? r.reset;
    }
  };
}

/** The bake's outcome: a verdict on the reading, which says when the counters restarted. */
function outcome(
  r: Reading,
  verdict: { readonly passed: boolean; readonly reason: string },
  early: boolean,
  elapsedMs: number,
): BakeOutcome {
  return {
    passed: verdict.passed,
    reason: withReset(verdict.reason, r.reset),
    canary: r.canary,
    baseline: r.baseline,
    early,
    elapsedMs,
    ...(r.reset !== undefined && { reset: r.reset }),
  };
}

/** A verdict on a window whose counters restarted says it was judged on the part since then. */
function withReset(reason: string, reset: string | undefined): string {
  return reset === undefined
    ? reason
    : `${reason} (not the whole window: ${reset}; judged on the counts since then)`;
}
