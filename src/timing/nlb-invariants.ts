import { formatDuration as fmt } from './duration.js';
import type { Invariant, TimingInput } from './types.js';

/**
 * A Network Load Balancer with `deregistration_delay.connection_termination.enabled`
 * "terminates connections at the end of the deregistration timeout"
 * (TargetGroupAttribute): every connection still open to the target is reset
 * then, whether a request is running on it or not. An NLB forwards TCP, so a
 * deregistered target's open connections keep carrying requests until its
 * services close them: the overlap and the whole stop must fit in the delay.
 */
function connectionTermination({ settings, drain }: TimingInput): Invariant | undefined {
  const delay = settings.deregistrationDelay;
  if (drain.method !== 'deregister' || !settings.connectionTermination || delay === undefined)
    return undefined;
  const needed = drain.overlap + drain.stopTimeout;
  const ok = needed <= delay;
  const head = `connection termination on: overlap ${fmt(drain.overlap)} + stop_timeout ${fmt(drain.stopTimeout)} = ${fmt(needed)} ${ok ? '≤' : '>'} deregistration delay ${fmt(delay)}`;
  return {
    id: 'connection-termination',
    severity: 'error',
    ok,
    message: ok
      ? `${head}: ok`
      : `${head}: the NLB resets every connection still open to the target when the delay ends, while its services may still be serving; raise the deregistration delay to at least ${fmt(needed)}, or turn deregistration_delay.connection_termination.enabled off`,
  };
}

/**
 * A TCP health check (an NLB's default HealthCheckProtocol) only opens a
 * connection: the 503 a `drain.method: health` drain answers passes it, so
 * the target never leaves rotation and await-out times out.
 */
function checkProtocol({ settings, drain }: TimingInput): Invariant | undefined {
  if (drain.method !== 'health' || settings.checkProtocol !== 'TCP') return undefined;
  return {
    id: 'check-protocol',
    severity: 'error',
    ok: false,
    message:
      "health-check protocol TCP with drain.method health: a TCP check only opens a connection, so the drain's 503 passes it and the target never leaves rotation; use drain.method deregister, or an HTTP health check on the health endpoint",
  };
}

/** The invariants only a Network Load Balancer's settings raise (none for the other kinds). */
export function nlbInvariants(input: TimingInput): Invariant[] {
  return [connectionTermination(input), checkProtocol(input)].filter(
    (i): i is Invariant => i !== undefined,
  );
}
