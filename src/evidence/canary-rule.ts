import { binomialCdf, binomialUpperTail, wilsonUpper } from './binomial.js';
import type { SourceKind } from './kit/source.js';
import { LATENCY_FLOOR_MS } from '../config/normalize-canary.js';

/**
 * The canary judgement (docs/canary.md), pure. Errors are counted as a
 * binomial: each request fails or not. The baseline's rate is bounded from
 * above (Wilson, 99 %), so its own noise never makes the canary look worse;
 * the canary's errors are then tested exactly against that bound plus the
 * margin. The canary fails when its errors would be rarer than 1 in 100
 * were it no worse than allowed; it passes when, the other way round, its
 * few errors would be rarer than 1 in 100 were it worse than the baseline's
 * own rate plus the margin. Anything between is inconclusive. During the bake
 * only a failure can be concluded, at a level divided by the number of
 * looks, so looking often does not add false alarms (Bonferroni).
 */

export interface CanaryRule {
  /** how much higher the canary's error rate may be, absolute: 0.01 = one percentage point */
  readonly margin: number;
  /** fewer requests on either side are inconclusive */
  readonly minRequests: number;
  /** how much slower the canary's mean response may be: 0.5 = 50 %; absent: not compared */
  readonly latencyMargin?: number;
  /** a difference in mean response no larger than this is noise, whatever the margin; absent: LATENCY_FLOOR_MS */
  readonly latencyFloorMs?: number;
}

/**
 * The finest latency difference each source can show: a balancer's counters may
 * keep whole milliseconds, so 1 ms against 0 ms may be 0.6 against 0.4.
 */
const RESOLUTION_MS: Readonly<Record<SourceKind, number>> = {
  balancer: 1,
  service: 0,
  command: 0,
};

/** `latency_floor` as judged: never finer than what the source can tell apart */
export function latencyFloorFor(source: SourceKind, floorMs: number): number {
  return Math.max(floorMs, RESOLUTION_MS[source]);
}

export interface Side {
  readonly errors: number;
  readonly requests: number;
  readonly latencyMs?: number;
}

export type Judgement =
  | { readonly verdict: 'pass' | 'fail' | 'inconclusive'; readonly reason: string }
  | { readonly verdict: 'pending'; readonly reason: string };

/** the end-of-bake level of either test */
export const ALPHA = 0.01;
/** spent over all looks during the bake, on top of ALPHA at its end */
export const EARLY_ALPHA = 0.005;
/** the 99 % one-sided normal quantile, for the baseline's upper bound */
const Z_BASELINE = 2.326;

export function rate(side: Side): string {
  if (side.requests === 0) return `${side.errors} errors of 0 requests`;
  return `${side.errors} errors of ${side.requests} requests (${percent(side.errors / side.requests)})`;
}

export function percent(fraction: number): string {
  const p = fraction * 100;
  if (p === 0) return '0 %';
  return `${p >= 10 ? p.toFixed(1) : p.toPrecision(2)} %`;
}

function tooFew(canary: Side, baseline: Side, rule: CanaryRule): string | undefined {
  if (canary.requests < rule.minRequests)
    return `the canary saw ${canary.requests} requests, fewer than min_requests ${rule.minRequests}`;
  if (baseline.requests < rule.minRequests)
    return `the baseline saw ${baseline.requests} requests, fewer than min_requests ${rule.minRequests}`;
  return undefined;
}

/** true when the canary is worse than allowed at level `alpha` */
function conclusivelyWorse(canary: Side, baseline: Side, rule: CanaryRule, alpha: number): boolean {
  // an allowed rate of 100 % or more can never be exceeded: the tail is then 1
  const allowed = wilsonUpper(baseline.errors, baseline.requests, Z_BASELINE) + rule.margin;
  // Stryker disable next-line EqualityOperator: a tail exactly at the level has probability zero
  return binomialUpperTail(canary.errors, canary.requests, allowed) < alpha;
}

function conclusivelyNoWorse(canary: Side, baseline: Side, rule: CanaryRule): boolean {
  // at a rate of 100 % or more no count is that low: the cdf is then 0, a pass
  const worse = baseline.errors / baseline.requests + rule.margin;
  // Stryker disable next-line EqualityOperator: a cdf exactly at the level has probability zero
  return binomialCdf(canary.errors, canary.requests, worse) < ALPHA;
}

function slower(canary: Side, baseline: Side, rule: CanaryRule): string | undefined {
  const margin = rule.latencyMargin;
  if (margin === undefined || canary.latencyMs === undefined || baseline.latencyMs === undefined)
    return undefined;
  const floor = rule.latencyFloorMs ?? LATENCY_FLOOR_MS;
  const more = canary.latencyMs - baseline.latencyMs;
  if (more <= baseline.latencyMs * margin || more <= floor) return undefined;
  return `the canary answers in ${Math.round(canary.latencyMs)} ms on average, the baseline in ${Math.round(baseline.latencyMs)} ms (latency_margin ${percent(margin)}, latency_floor ${floor} ms)`;
}

function numbers(canary: Side, baseline: Side): string {
  return `canary ${rate(canary)}, baseline ${rate(baseline)}`;
}

/** While baking: fail now if already conclusive, else keep baking. */
export function judgeDuringBake(
  canary: Side,
  baseline: Side,
  rule: CanaryRule,
  looks: number,
): Judgement {
  const few = tooFew(canary, baseline, rule);
  if (
    few === undefined &&
    conclusivelyWorse(canary, baseline, rule, EARLY_ALPHA / Math.max(1, looks))
  )
    return { verdict: 'fail', reason: `${numbers(canary, baseline)}: conclusively worse` };
  return { verdict: 'pending', reason: few ?? numbers(canary, baseline) };
}

/** At the end of the bake: pass, fail or inconclusive. */
export function judgeAtEnd(canary: Side, baseline: Side, rule: CanaryRule): Judgement {
  const few = tooFew(canary, baseline, rule);
  if (few !== undefined) return { verdict: 'inconclusive', reason: few };
  const shown = numbers(canary, baseline);
  if (conclusivelyWorse(canary, baseline, rule, ALPHA))
    return {
      verdict: 'fail',
      reason: `${shown}: worse by more than margin ${percent(rule.margin)}`,
    };
  const late = slower(canary, baseline, rule);
  if (late !== undefined) return { verdict: 'fail', reason: late };
  if (conclusivelyNoWorse(canary, baseline, rule))
    return { verdict: 'pass', reason: `${shown}: within margin ${percent(rule.margin)}` };
  return {
    verdict: 'inconclusive',
    reason: `${shown}: too few requests to tell a difference of ${percent(rule.margin)}`,
  };
}

/** What an inconclusive end counts as, by `inconclusive: fail | pass`. */
export function settle(
  judgement: Judgement,
  inconclusive: 'fail' | 'pass',
): { readonly passed: boolean; readonly reason: string } {
  if (judgement.verdict === 'inconclusive')
    return {
      passed: inconclusive === 'pass',
      reason: `inconclusive (${judgement.reason}): counts as ${inconclusive === 'pass' ? 'passed' : 'failed'}, by inconclusive: ${inconclusive}`,
    };
  return { passed: judgement.verdict === 'pass', reason: judgement.reason };
}
