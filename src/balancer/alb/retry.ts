import type { Clock } from '../../clock.js';

/**
 * The orchestrator's bound on top of the SDK's standard retry strategy: a call
 * the SDK gave up on after its own attempts because AWS throttled it or
 * failed (5xx) is tried again with a growing pause, until `within` has passed.
 */
export interface RetryPolicy {
  readonly within: number;
  readonly firstPause: number;
  readonly maxPause: number;
}

export const defaultRetryPolicy: RetryPolicy = {
  within: 60_000,
  firstPause: 1000,
  maxPause: 10_000,
};

export interface RetryEpisode {
  readonly attempts: number;
  readonly elapsed: number;
  readonly cause: 'throttled' | 'failed';
}

const throttles = new Set([
  'Throttling',
  'ThrottlingException',
  'ThrottledException',
  'RequestLimitExceeded',
  'TooManyRequestsException',
  'RequestThrottled',
  'RequestThrottledException',
]);

/** Throttling or a server-side fault: worth another try. Anything else is an answer. */
export function transientCause(error: unknown): RetryEpisode['cause'] | undefined {
  const e = error as { name?: unknown; $fault?: unknown; $metadata?: { httpStatusCode?: number } };
  if (typeof e?.name === 'string' && throttles.has(e.name)) return 'throttled';
  const status = e?.$metadata?.httpStatusCode;
  if (e?.$fault === 'server' || (status !== undefined && status >= 500)) return 'failed';
  return undefined;
}

/**
 * `send` until it answers, a non-transient error, or the bound. `onRecovered`
 * hears of an episode that ended well; one that lasts past the bound throws
 * its last error with the episode attached.
 */
export async function withRetry<T>(
  send: () => Promise<T>,
  clock: Clock,
  policy: RetryPolicy,
  onRecovered: (episode: RetryEpisode) => void,
): Promise<T> {
  const started = clock.now();
  let attempts = 0;
  let pause = policy.firstPause;
  let cause: RetryEpisode['cause'] | undefined;
  for (;;) {
    try {
      const value = await send();
      // an answer the SDK got after its own retries counts them too
      attempts += sdkAttempts(value);
      if (cause) onRecovered({ attempts, elapsed: clock.now() - started, cause });
      return value;
    } catch (error) {
      // the SDK's own attempts inside this one call, when it says
      attempts += sdkAttempts(error);
      const now = transientCause(error);
      const elapsed = clock.now() - started;
      if (!now) throw error;
      cause = cause === 'throttled' ? cause : now;
      if (elapsed + pause > policy.within)
        throw new RetriesExhausted(error, { attempts, elapsed, cause });
      await clock.sleep(pause);
      pause = Math.min(pause * 2, policy.maxPause);
    }
  }
}

/** The requests the SDK sent for one call, by its `$metadata` on the answer or the error. */
function sdkAttempts(outcome: unknown): number {
  const attempts = (outcome as { $metadata?: { attempts?: unknown } } | undefined)?.$metadata
    ?.attempts;
  return typeof attempts === 'number' && attempts >= 1 ? attempts : 1;
}

export class RetriesExhausted extends Error {
  constructor(
    readonly last: unknown,
    readonly episode: RetryEpisode,
  ) {
    super('retries exhausted');
  }
}
