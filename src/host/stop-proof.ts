import type { Clock } from '../clock.js';
import type { RuntimeConfig, ServiceConfig } from '../config/types.js';
import { checkAddress, formatAddress, probeListening } from './checks/listening.js';
import type { Runtime } from './runtime/runtime.js';
import type { ServiceProof } from '../protocol/results.js';

export type { ServiceProof };

export interface StopProofOptions {
  readonly clock: Clock;
  /** clock time by which every service must be proven stopped */
  readonly deadline: number;
  readonly runtime?: Runtime;
  readonly signal?: AbortSignal;
}

/** between rounds: a listener closing after SIGTERM is seen within this */
const ROUND_EVERY = 100;
/** one probe's bound: on loopback a refusal takes microseconds */
const PROBE_TIMEOUT = 1_000;
/** the second look: a respawned Node process listens again within a few hundred ms */
const CONFIRM_AFTER = 300;
/**
 * a status command gets at least this, and what is left of stop_timeout beyond
 * it: the runtime's own bound for a status (command.ts), since a container
 * engine's `ps` on a busy host takes seconds, and a proof must not fail a
 * stop for a slow answer
 */
const STATUS_TIMEOUT = 30_000;

/** compose ps of a container that ended by SIGKILL (128 + 9) */
const KILLED = 'exited-137';

/** What proves a stop of this service, in words (`deploy check`); empty when nothing can. */
export function stopProofMethods(service: ServiceConfig, runtime: RuntimeConfig): string[] {
  if (!service.stopProof) return [];
  const address = checkAddress(service.check);
  return [
    ...(address ? [`${formatAddress(address)} refuses connections`] : []),
    runtime.kind === 'command'
      ? 'its status command exits non-zero'
      : 'compose shows it not running',
  ];
}

/**
 * A stop command that exits 0 proves nothing: a launcher whose `$!` named a
 * process already gone, a pid file of another process, a service started by
 * hand before handoff managed the host. Every service is proven stopped by
 * what can see it — its check's address refuses connections (any accept, even
 * one that would answer 503, means something still listens) and the runtime
 * says it is not running — or the stop fails, so nothing is ever started on
 * top of a live process.
 */
export async function proveStopped(
  services: readonly ServiceConfig[],
  options: StopProofOptions,
): Promise<ServiceProof[]> {
  const { clock } = options;
  const proofs = new Map<string, ServiceProof>();
  const proving = services.filter((s) => s.stopProof);
  for (const s of services) {
    if (!s.stopProof)
      proofs.set(s.name, { service: s.name, proven: true, detail: 'stop_proof: false' });
  }
  let confirming = false;
  while (proving.length > 0) {
    const pending = confirming ? proving : proving.filter((s) => !proofs.get(s.name)?.proven);
    const round = await Promise.all(pending.map((s) => proveOne(s, options)));
    for (const p of round) proofs.set(p.service, p);
    const allProven = proving.every((s) => proofs.get(s.name)?.proven);
    if (allProven && confirming) break;
    if (!allProven && clock.now() >= options.deadline) break;
    // a supervisor or a respawn loop (`Restart=always`, `while true; do node app; done`)
    // brings a killed process back within moments: once all are seen stopped, look again
    confirming = allProven;
    await clock.sleep(
      allProven
        ? CONFIRM_AFTER
        : Math.min(ROUND_EVERY, Math.max(0, options.deadline - clock.now())),
      options.signal,
    );
  }
  return services.map((s) => proofs.get(s.name)!);
}

async function proveOne(service: ServiceConfig, options: StopProofOptions): Promise<ServiceProof> {
  const seen: string[] = [];
  const address = checkAddress(service.check);
  if (address) {
    const where = formatAddress(address);
    const state = await probeListening(address, PROBE_TIMEOUT);
    if (state === 'listening')
      return { service: service.name, proven: false, detail: `${where} still accepts connections` };
    if (state === 'unknown')
      return {
        service: service.name,
        proven: false,
        detail: `${where} neither accepts nor refuses connections`,
      };
    seen.push(`${where} refuses connections`);
  }
  if (options.runtime) {
    const status = await options.runtime.status(service.name, {
      timeoutMs: Math.max(STATUS_TIMEOUT, options.deadline - options.clock.now()),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (status.state === 'running' || status.state === 'unhealthy')
      return {
        service: service.name,
        proven: false,
        detail: `its status still says running (${status.detail})`,
      };
    if (status.state === 'unknown')
      return {
        service: service.name,
        proven: false,
        detail: `its status did not answer (${status.detail})`,
      };
    seen.push(`status says stopped (${status.detail})`);
    if (status.detail === KILLED)
      return { service: service.name, proven: true, detail: seen.join(', '), killed: true };
  }
  if (seen.length === 0)
    return {
      service: service.name,
      proven: false,
      detail: 'nothing can see it stop (no address, no runtime)',
    };
  return { service: service.name, proven: true, detail: seen.join(', ') };
}
