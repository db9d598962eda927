import * as z from 'zod';

/**
 * The lines `deploy report` reads, as docs/json.md describes them: only the
 * fields it draws; everything else on a line is left alone.
 */
export const stepShape = z.object({
  step: z.string(),
  offset_ms: z.number(),
  duration_ms: z.number(),
  ok: z.boolean(),
  bound_ms: z.number().optional(),
  detail: z.string().optional(),
  balancers: z.record(z.string(), z.number().nullable()).optional(),
});

const figures = z.object({
  requests: z.number(),
  failed: z.number(),
  reset: z.string().optional(),
  unread: z.string().optional(),
});

const hostOutcome = z.object({
  host: z.string(),
  result: z.string(),
  steps: z.array(stepShape),
  error: z.string().optional(),
  left_drained: z.boolean().optional(),
});

export const rolloutResultShape = z.object({
  event: z.literal('result'),
  ok: z.boolean(),
  release: z.string(),
  hosts: z.array(hostOutcome),
  not_reached: z.array(z.string()).default([]),
  elapsed_ms: z.number(),
  error: z.string().optional(),
  blocked: z.string().optional(),
  prepare_failed: z.string().optional(),
  receipt: z
    .object({
      source: z.string(),
      hosts: z.array(figures.extend({ host: z.string() })).default([]),
      total: figures,
    })
    .optional(),
  judgements: z
    .array(
      z.object({
        kind: z.string(),
        hosts: z.array(z.string()),
        passed: z.boolean(),
        reason: z.string(),
      }),
    )
    .default([]),
  fleet_rollback: z.object({ hosts: z.array(hostOutcome) }).optional(),
});
export type RolloutResultLine = z.infer<typeof rolloutResultShape>;

export const eventShape = z.object({
  event: z.string(),
  level: z.string().optional(),
  host: z.string().optional(),
  message: z.string().optional(),
  time: z.string().optional(),
  fields: z.record(z.string(), z.unknown()).optional(),
});

export const waveFields = z.object({
  wave: z.number(),
  hosts: z.array(z.object({ host: z.string() })),
});

/** one line of a host's audit.jsonl, or an entry of `deploy audit --json` (with its host) */
export const auditShape = z.object({
  step: z.string(),
  start: z.string().optional(),
  time: z.string().optional(),
  duration_ms: z.number(),
  result: z.string(),
  release: z.string(),
  host: z.string().optional(),
  detail: z.string().optional(),
});
export type AuditLine = z.infer<typeof auditShape>;
