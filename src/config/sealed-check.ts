import { MAX_DURATION_MS } from './kit/duration.js';
import { ENV_NAME, HOST_NAME, HOST_PATH, MARKS_DIR, SERVICE_NAME, USER_NAME } from './kit/names.js';
import type { Config } from './types.js';

/**
 * The seal is a sha256 anyone who can write the file can recompute, so a
 * sealed Config is not trusted with what ends up in a path, a cron line, an
 * argv or a timer on the host: those fields are checked again here, with the
 * schema's own patterns (names.ts) and without zod. A Config that fails is
 * not used: the caller validates the document in full instead, which names
 * the problem with its line and column.
 */
export function sealedConfigHolds(value: unknown): value is Omit<Config, 'source'> {
  if (!isObject(value)) return false;
  const { ssh, host, hosts, services, drain, rollout, watchdog } = value;
  if (!isObject(ssh) || !isObject(host) || !isObject(drain) || !isObject(rollout)) return false;
  if (!isObject(watchdog) || !Array.isArray(hosts) || !Array.isArray(services)) return false;
  const { env } = value;
  if (!isObject(env) || !isObject(env.clear) || !Array.isArray(env.secret)) return false;
  return (
    matches(value.service, SERVICE_NAME) &&
    matches(ssh.user, USER_NAME) &&
    typeof ssh.sudo === 'boolean' &&
    env.secret.every((name) => matches(name, ENV_NAME)) &&
    hosts.every((h) => isObject(h) && matches(h.name, HOST_NAME)) &&
    ['root', 'lock', 'state', 'agent'].every((key) => matches(host[key], HOST_PATH)) &&
    services.every(
      (s) =>
        isObject(s) &&
        matches(s.name, SERVICE_NAME) &&
        isObject(s.check) &&
        optionalDurations(s.check, ['timeout', 'maxAge']) &&
        (s.check.kind !== 'heartbeat' || matches(s.check.dir, MARKS_DIR)),
    ) &&
    durations(drain, ['overlap', 'maxRequest', 'stopTimeout']) &&
    durations(rollout, ['verifyTimeout']) &&
    durations(watchdog, ['every', 'startPeriod', 'restartWindow'])
  );
}

function matches(value: unknown, pattern: RegExp): boolean {
  return typeof value === 'string' && pattern.test(value);
}

/** a timer's value: a whole positive number of ms that a timer can hold */
function isDuration(value: unknown): boolean {
  return (
    Number.isSafeInteger(value) && (value as number) > 0 && (value as number) <= MAX_DURATION_MS
  );
}

function durations(block: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((key) => isDuration(block[key]));
}

function optionalDurations(block: Record<string, unknown>, keys: readonly string[]): boolean {
  return keys.every((key) => block[key] === undefined || isDuration(block[key]));
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
