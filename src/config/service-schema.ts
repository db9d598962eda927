import * as z from 'zod';
import { count, duration, serviceName, text } from './kit/fields.js';
import { MARKS_DIR, MARKS_DIR_RULE } from './kit/names.js';

/**
 * A service and its check. A check is exactly one of http, tcp, heartbeat or
 * runtime, plus an optional timeout; it is validated as one object (not a
 * union) so a mistake gets one precise message instead of four guesses.
 */

const url = z
  .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
  .meta({ description: 'the URL that answers 200 when the service is healthy' });

const expectRelease = z.boolean({ error: 'must be true or false' }).meta({
  description:
    'pass only when the answer carries the header x-release equal to the release that should be live',
});

// a plain string is the URL; one object schema (not a union) so a mistake in
// the long form gets its own message instead of "Invalid input"
export const httpCheckSchema = z
  .preprocess(
    (v) => (typeof v === 'string' ? { url: v } : v),
    z.strictObject({
      url,
      expect_status: z
        .number()
        .int({ error: 'must be an HTTP status code' })
        .min(100, { error: 'must be an HTTP status code' })
        .max(599, { error: 'must be an HTTP status code' })
        .default(200)
        .meta({ description: 'the status a healthy service answers with' }),
      expect_release: expectRelease.optional(),
    }),
  )
  .meta({ description: 'an HTTP GET: "url" or { url, expect_status, expect_release }' });

const tcp = z
  .string()
  .transform((value, ctx) => {
    const match = /^(\[[^\]\s]+\]|[^:\s[\]]+):(\d{1,5})$/.exec(value.trim());
    const port = Number(match?.[2]);
    if (!match?.[1] || port < 1 || port > 65_535) {
      ctx.addIssue({ code: 'custom', message: 'must be "host:port", e.g. "127.0.0.1:5432"' });
      return z.NEVER;
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  })
  .meta({ description: 'a TCP connect to "host:port"' });

const heartbeat = z
  .strictObject({
    dir: z.string().regex(MARKS_DIR, { error: MARKS_DIR_RULE }).meta({
      description: 'directory of the heartbeat marks, relative to host.state or absolute',
    }),
    max_age: duration('a mark older than this is a dead worker slot'),
    expected: count(
      'a minimum: fail also when the workers wrote fewer slots than this in dir/expected (default: what they wrote)',
    ).optional(),
  })
  .meta({ description: 'worker slots that touch a mark file in dir' });

const checkKinds = ['http', 'tcp', 'heartbeat', 'runtime'] as const;

export const checkSchema = z
  .strictObject({
    http: httpCheckSchema.optional(),
    tcp: tcp.optional(),
    heartbeat: heartbeat.optional(),
    runtime: z
      .literal(true, { error: 'must be true (leave it out to use another check)' })
      .optional()
      .meta({ description: "the runtime's own status (compose ps / the status command)" }),
    timeout: duration('how long one check may take (default 2s; not for heartbeat)').optional(),
    expect_release: expectRelease.optional(),
    failures_before_restart: count(
      "this check's consecutive failures before the watchdog restarts the service (default: watchdog.failures_before_restart)",
    ).optional(),
    successes_before_healthy: count(
      "this check's consecutive passes before the service counts as healthy again (default: watchdog.successes_before_healthy)",
    ).optional(),
  })
  .superRefine((check, ctx) => {
    const given = checkKinds.filter((kind) => check[kind] !== undefined);
    if (given.length !== 1) {
      const what = given.length === 0 ? 'none given' : `got ${given.join(' and ')}`;
      ctx.addIssue({
        code: 'custom',
        message: `needs exactly one of http, tcp, heartbeat, runtime (${what})`,
      });
    }
    const inner = check.http?.expect_release;
    if (
      inner !== undefined &&
      check.expect_release !== undefined &&
      inner !== check.expect_release
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['expect_release'],
        message: `contradicts http.expect_release (${inner}); give it once, in http or beside it`,
      });
    }
    if (check.expect_release !== undefined && check.http === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['expect_release'],
        message:
          'only an http check can expect a release (the x-release header); remove it or use an http check',
      });
    }
    if (check.heartbeat !== undefined && check.timeout !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['timeout'],
        message: 'a heartbeat check has no timeout; max_age bounds it',
      });
    }
  })
  .meta({
    description: 'how to tell the service works: exactly one of http, tcp, heartbeat, runtime',
  });

const shell = (description: string) => text(description).optional();

export const serviceSchema = z.strictObject({
  name: serviceName('the service name, as the runtime knows it'),
  check: checkSchema,
  keep_alive_timeout: duration(
    "the service's HTTP keep-alive timeout; must be longer than the balancer's idle_timeout",
  ).optional(),
  start: shell('runtime.kind command: starts the service (sh -c, RELEASE set)'),
  stop: shell('runtime.kind command: stops the service within drain.stop_timeout'),
  status: shell('runtime.kind command: exits 0 while the service runs'),
  logs: shell(
    'runtime.kind command, optional: prints the service\'s logs for deploy logs (journalctl -u app -n "$HANDOFF_TAIL"); HANDOFF_FOLLOW=1 to follow, HANDOFF_SINCE when asked. Default: its start command\'s output file',
  ),
  stop_proof: z.boolean({ error: 'must be true or false' }).optional().meta({
    description:
      "prove a stop (its check's address refuses connections, its status says stopped); false only when the check goes through something that outlives the service",
  }),
});

export type RawService = z.output<typeof serviceSchema>;
export type RawCheck = z.output<typeof checkSchema>;
