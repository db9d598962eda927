/**
 * The two statistics the canary rule needs, exact where counts are small:
 * the binomial distribution's lower tail, summed term by term in log space
 * (no normal approximation, which is wrong at 1 error in 10), and the Wilson
 * score upper bound of a rate, used for the baseline, whose counts are the
 * larger side.
 */

/**
 * Terms further than this many times √(np) (a bound on the standard
 * deviation, plus a margin for small counts) from the mean are below e^-800
 * of the largest: left out, they change no result by more than a double can
 * hold. So the sum is at most ~2·(40√(np) + 64) terms whatever the counts:
 * 1e9 errors from a host cost tens of milliseconds, not 15 s of the
 * orchestrator's event loop. Small counts (within the width of zero) are
 * summed from zero, exactly as before; past that the first term comes from
 * log-gamma: relative error below 1e-7 up to 1e8 requests, 1e-5 at 1e9.
 */
const WIDTH_SD = 40;
const WIDTH_MIN = 64;

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (p <= 0) return 1;
  // every request fails: X is n (and log(1 − p) is −∞, which would make every term NaN)
  if (p >= 1) return k >= n ? 1 : 0;
  const mean = Math.floor(n * p);
  const width = Math.ceil(WIDTH_SD * Math.sqrt(n * p)) + WIDTH_MIN;
  // the sum is 1: summed to n only up to rounding (past n its terms are NaN), and
  // past the mean by the width to a double's precision
  if (k >= Math.min(n, mean + width)) return 1;
  const from = Math.max(0, Math.min(k, mean) - width);
  // term(i+1) = term(i) · (n−i)/(i+1) · p/(1−p), from log C(n, from) p^from (1−p)^(n−from)
  const oddsLog = Math.log(p) - Math.log1p(-p);
  let logTerm = logChoose(n, from) + from * Math.log(p) + (n - from) * Math.log1p(-p);
  let sum = Math.exp(logTerm);
  for (let i = from; i < k; i += 1) {
    logTerm += Math.log((n - i) / (i + 1)) + oddsLog;
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
}

/** log C(n, k): 0 at k = 0 (a sum from zero stays exact), log-gamma past it (k < n here) */
function logChoose(n: number, k: number): number {
  if (k === 0) return 0;
  return logGamma(n + 1) - logGamma(k + 1) - logGamma(n - k + 1);
}

/** Stirling's series is taken this far up, where its error is below 4e-13 (x ≥ 1) */
const SHIFT = 10;

/** log Γ(x) for x ≥ 1: Stirling's series at x + SHIFT, less log x(x+1)…(x+SHIFT−1) */
export function logGamma(x: number): number {
  let shift = 0;
  for (let i = 0; i < SHIFT; i += 1) shift -= Math.log(x + i);
  const y = x + SHIFT;
  const inv = 1 / y;
  const inv2 = inv * inv;
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 / 1680)));
  return shift + (y - 0.5) * Math.log(y) - y + 0.5 * Math.log(2 * Math.PI) + series;
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function binomialUpperTail(k: number, n: number, p: number): number {
  return 1 - binomialCdf(k - 1, n, p);
}

/** The Wilson score interval's upper end for `errors` of `requests` at normal quantile z. */
export function wilsonUpper(errors: number, requests: number, z: number): number {
  if (requests <= 0) return 1;
  const rate = errors / requests;
  const z2 = z * z;
  const centre = rate + z2 / (2 * requests);
  const spread = z * Math.sqrt((rate * (1 - rate)) / requests + z2 / (4 * requests * requests));
  return Math.min(1, (centre + spread) / (1 + z2 / requests));
}
