import * as z from 'zod';
import { countingKinds } from './balancer-kinds.js';
import { count, duration, durationOrZero, text } from './kit/fields.js';

/**
 * rollout.canary, rollout.bake and rollout.watch as written (docs/canary.md).
 * The judgement's keys (source, margin, min_requests, inconclusive …) live
 * under canary and apply to every bake and to the watch; without a canary
 * block, a bake or a watch judges with their defaults.
 */

/** "1%", "0.5%" → 0.01, 0.005 */
function share(description: string) {
  return z
    .string({ error: 'must be a percentage like "1%"' })
    .regex(/^\d{1,3}(\.\d{1,3})?%$/, { error: 'must be a percentage like "1%" or "0.5%"' })
    .transform((text, ctx) => {
      const fraction = Number(text.slice(0, -1)) / 100;
      if (fraction <= 0 || fraction > 1) {
        ctx.addIssue({ code: 'custom', message: 'must be above 0% and at most 100%' });
        return z.NEVER;
      }
      return fraction;
    })
    .meta({ description, examples: ['1%', '0.5%'] });
}

export const sourceKinds = ['balancer', 'service', 'command'] as const;

export function canarySchema<H extends z.ZodType>(hosts: H) {
  return z
    .strictObject({
      hosts: hosts.meta({
        description: 'the first wave: a number of hosts, or a percentage of the fleet like "10%"',
      }),
      bake: duration('how long the canary takes traffic, judged, before the next wave').prefault(
        '5m',
      ),
      source: z
        .enum(sourceKinds)
        .optional()
        .meta({
          description: `where the counts come from: balancer (its counts per host: ${countingKinds}), service (the health library counts), command; default balancer when every balancer counts per host, else service`,
        }),
      command: text(
        'with source command: an executable beside deploy.yml printing {"requests": N, "errors": N} for HANDOFF_HOST over HANDOFF_FROM–HANDOFF_TO',
      ).optional(),
      command_timeout: duration('the command is killed and the read retried after this').prefault(
        '10s',
      ),
      margin: share(
        "how much higher than the baseline's the canary's error rate may be, in percentage points",
      ).prefault('1%'),
      latency_margin: share(
        'how much slower than the baseline the canary may answer on average; unset: not compared',
      ).optional(),
      latency_floor: durationOrZero(
        'with latency_margin: a difference in mean response no larger than this is noise, whatever the margin (a balancer may report whole milliseconds)',
      ).prefault('5ms'),
      min_requests: count('fewer requests on either side are inconclusive').default(100),
      inconclusive: z.enum(['fail', 'pass']).default('fail').meta({
        description: 'what an inconclusive judgement (too few requests, counts unread) counts as',
      }),
      poll: duration('how often the counts are read during a bake').prefault('5s'),
    })
    .meta({ description: 'the first wave, judged against the hosts still on the old release' });
}

export const bakeKeys = {
  bake: durationOrZero(
    'between later waves: the new hosts take traffic, judged against the error rate before the rollout',
  ).prefault('0s'),
  watch: durationOrZero(
    'after the last wave: every host judged against the error rate before the rollout',
  ).prefault('0s'),
};
