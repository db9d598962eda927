import * as z from 'zod';
import { readDuration } from './duration.js';
import {
  ENV_NAME,
  ENV_NAME_RULE,
  HOST_NAME,
  HOST_NAME_RULE,
  HOST_PATH,
  HOST_PATH_RULE,
  SERVICE_NAME,
  SERVICE_NAME_RULE,
  USER_NAME,
  USER_NAME_RULE,
} from './names.js';

/**
 * The field schemas every block shares. Each carries its own message so a
 * mistake reads as advice ("write it like 15s"), not as a type dump.
 */

const durationPattern = '^(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?$';

function durationField(allowZero: boolean) {
  return (description: string) =>
    z
      .string({
        // a number or a list reaches here; undefined falls through to "required"
        error: (issue) => (issue.input === undefined ? undefined : reasonFor(issue.input)),
      })
      .transform((text, ctx) => {
        if (allowZero && /^0+(ms|s|m|h)$/.test(text.trim())) return 0;
        const parsed = readDuration(text);
        if (parsed.ok) return parsed.ms;
        ctx.addIssue({ code: 'custom', message: parsed.reason, input: text });
        return z.NEVER;
      })
      .meta({ description, pattern: durationPattern, examples: ['500ms', '15s', '1m30s'] });
}

function reasonFor(input: unknown): string {
  const parsed = readDuration(input);
  return parsed.ok ? 'expected a duration' : parsed.reason;
}

/** A positive duration in milliseconds, written with a unit. */
export const duration = durationField(false);
/** Like `duration`, but "0s" is allowed (a disabled slow start, no deregistration delay). */
export const durationOrZero = durationField(true);

export function count(description: string, min = 1) {
  return z
    .number()
    .int({ error: 'must be a whole number' })
    .min(min, { error: `must be at least ${min}` })
    .max(1_000_000, { error: 'is too large' })
    .meta({ description });
}

export function port(description: string) {
  return z
    .number()
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be a port between 1 and 65535' })
    .max(65_535, { error: 'must be a port between 1 and 65535' })
    .meta({ description });
}

export function text(description: string) {
  return z.string().trim().min(1, { error: 'must not be empty' }).meta({ description });
}

/** A path on the host: absolute, because `~` there is not the operator's home. */
export function hostPath(description: string) {
  return z.string().regex(HOST_PATH, { error: HOST_PATH_RULE }).meta({ description });
}

/** Names that end up in paths, lock names and cron file names. */
export const serviceName = (description: string) =>
  z.string().regex(SERVICE_NAME, { error: SERVICE_NAME_RULE }).meta({ description });

export const hostName = (description: string) =>
  z.string().regex(HOST_NAME, { error: HOST_NAME_RULE }).meta({ description });

/** `ssh.user`: it is also the user field of the watchdog's cron line (names.ts). */
export const userName = (description: string) =>
  z.string().regex(USER_NAME, { error: USER_NAME_RULE }).meta({ description });

/** A variable name of the release's `.env`: what both `sh` and compose read as a name. */
export const envName = (description: string) =>
  z.string().regex(ENV_NAME, { error: ENV_NAME_RULE }).meta({ description });
