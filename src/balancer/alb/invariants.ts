import { formatDuration as fmt } from '../../timing/index.js';
import type { Invariant, TimingInput } from '../../timing/index.js';
import type { AlbHealthCheck } from './health-check.js';

type Input = TimingInput<AlbHealthCheck>;

/**
 * A Network Load Balancer with `deregistration_delay.connection_termination.enabled`
 * "terminates connections at the end of the deregistration timeout"
 * (TargetGroupAttribute): every connection still open to the target is reset
 * then, whether a request is running on it or not. An NLB forwards TCP, so a
 * deregistered target's open connections keep carrying requests until its
 * services close them: the overlap and the whole stop must fit in the delay.
 */
function connectionTermination({ settings, drain }: Input): Invariant | undefined {
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
function checkProtocol({ settings, drain }: Input): Invariant | undefined {
  if (drain.method !== 'health' || settings.checkProtocol !== 'TCP') return undefined;
  return {
    id: 'check-protocol',
    severity: 'error',
    ok: false,
    message:
      "health-check protocol TCP with drain.method health: a TCP check only opens a connection, so the drain's 503 passes it and the target never leaves rotation; use drain.method deregister, or an HTTP health check on the health endpoint",
  };
}

/**
 * A Network Load Balancer resets the connections to a target that turns
 * unhealthy unless `target_health_state.unhealthy.connection_termination.enabled`
 * is false (AWS's default is true; its health-check guide: "If a target becomes
 * unhealthy, the load balancer sends a TCP RST for packets received on the
 * client connections"). A `drain.method: health` drain makes the target
 * unhealthy on purpose, then keeps serving the overlap and the stop on the
 * connections it holds: they must live that long. With termination off, an
 * unhealthy draining interval other than 0 ends them when it runs out.
 */
function unhealthyTermination({ settings, drain }: Input): Invariant | undefined {
  const { unhealthyTermination: terminates, unhealthyDrainingInterval: interval } = settings;
  if (drain.method !== 'health' || terminates === undefined) return undefined;
  const needed = drain.overlap + drain.stopTimeout;
  const fix = `set target_health_state.unhealthy.connection_termination.enabled false (draining_interval_seconds 0, or at least ${fmt(needed)}), or use drain.method deregister`;
  if (terminates)
    return {
      id: 'unhealthy-termination',
      severity: 'error',
      ok: false,
      message: `unhealthy connection termination on: the NLB resets every connection to a host the moment the drain's 503 makes it unhealthy, cutting what the overlap and the stop (${fmt(needed)}) still serve; ${fix}`,
    };
  const ok = interval === undefined || interval === 0 || needed <= interval;
  const kept =
    interval === undefined || interval === 0
      ? 'kept until the services close them'
      : `kept ${fmt(interval)} ${ok ? '≥' : '<'} overlap + stop_timeout ${fmt(needed)}`;
  return {
    id: 'unhealthy-termination',
    severity: 'error',
    ok,
    message: ok
      ? `unhealthy connection termination off: an unhealthy host's connections are ${kept}: ok`
      : `unhealthy connection termination off, but an unhealthy host's connections are ${kept}: the NLB resets them while its services may still be serving; ${fix}`,
  };
}

/** What an ALB entry's settings raise beside the shared invariants: a Network Load Balancer's connection handling (none for an Application Load Balancer's). */
export function albInvariants(input: Input): Invariant[] {
  return [connectionTermination(input), checkProtocol(input), unhealthyTermination(input)].filter(
    (i): i is Invariant => i !== undefined,
  );
}
