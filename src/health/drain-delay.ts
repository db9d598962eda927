/**
 * How long a service keeps serving, answering ready 503 `draining`, after a
 * SIGTERM that no rollout announced (a watchdog restart, a manual stop): the
 * balancer's detection time (`HANDOFF_DETECT_TIME`, seconds), so it takes the
 * host out before the listener closes — but never so long that the runtime's
 * SIGKILL (`HANDOFF_STOP_TIMEOUT`, seconds) lands before `graceMs` of
 * closing could run. Without the detection time: no delay, as before.
 */
export function drainDelayMs(
  env: Readonly<Record<string, string | undefined>>,
  graceMs: number,
): number {
  const detect = seconds(env.HANDOFF_DETECT_TIME);
  if (detect === undefined) return 0;
  const stop = seconds(env.HANDOFF_STOP_TIMEOUT);
  const room = stop === undefined ? detect : Math.max(0, stop - graceMs);
  return Math.min(detect, room);
}

function seconds(value: string | undefined): number | undefined {
  const n = Number(value);
  // the environment arrives from outside: garbage is ignored, not trusted
  return value !== undefined && value.trim() !== '' && Number.isFinite(n) && n >= 0
    ? n * 1000
    : undefined;
}
