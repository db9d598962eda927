/**
 * The two statistics the canary rule needs, exact where counts are small:
 * the binomial distribution's lower tail, summed term by term in log space
 * (no normal approximation, which is wrong at 1 error in 10), and the Wilson
 * score upper bound of a rate, used for the baseline, whose counts are the
 * larger side.
 */

/** P(X ≤ k) for X ~ Binomial(n, p). */
export function binomialCdf(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  // summed to the end the terms give 1 only up to rounding, and past n they are NaN
  if (k >= n) return 1;
  // log(1 − p) is −∞: the odds would make every term NaN
  if (p >= 1) return 0;
  // term(i+1) = term(i) · (n−i)/(i+1) · p/(1−p); the first terms may underflow to 0,
  // which is what they are worth next to the terms near the mean; p = 0 gives 1 + 0 + …
  const oddsLog = Math.log(p) - Math.log1p(-p);
  let logTerm = n * Math.log1p(-p);
  let sum = Math.exp(logTerm);
  for (let i = 0; i < k; i += 1) {
    logTerm += Math.log((n - i) / (i + 1)) + oddsLog;
    sum += Math.exp(logTerm);
  }
  return Math.min(1, sum);
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
