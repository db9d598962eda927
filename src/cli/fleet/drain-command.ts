import { systemClock } from '../../clock.js';
import { findHost } from '../../rollout/plan.js';
import { plannedDrain } from '../../rollout/handshake/planned-drain.js';
import { formatMs } from '../../timing/duration.js';
import { interruptSignal, whoAmI } from '../connections.js';
import { withFleetLease } from '../with-fleet-lease.js';
import { open, type FleetFlags } from '../open-fleet.js';

/**
 * `deploy drain HOST` / `undrain HOST`: an operator's planned drain, under the
 * host lock and the capacity guard (--force overrides it, saying so in the
 * output and the host's audit); then, unless --no-wait, until the balancer
 * agrees (planned-drain.ts).
 */
export async function runDrain(
  flags: FleetFlags & { lease: number; wait: boolean; waitLease?: number; force?: boolean },
  hostName: string,
  drain: boolean,
): Promise<void> {
  const { out, config, connections } = await open(flags);
  const host = findHost(config.hosts, hostName);
  const interrupt = interruptSignal(out);
  try {
    const agent = await connections.agent(host);
    // built lazily: with --no-wait and the health method nothing asks it anything
    const balancer = await connections.balancer();
    const command = drain ? 'drain' : 'undrain';
    const lease = { config, connections, log: out, signal: interrupt.signal, command };
    const r = await withFleetLease({ ...lease, waitMs: flags.waitLease }, (_, signal) =>
      plannedDrain(
        {
          config,
          clock: systemClock,
          log: out,
          signal,
          balancer,
          who: `deploy ${command} by ${whoAmI()}`,
          // the capacity guard asks the other hosts too
          agent: (h) => (h.name === host.name ? Promise.resolve(agent) : connections.agent(h)),
        },
        host,
        agent,
        { drain, leaseMs: flags.lease, wait: flags.wait, force: flags.force ?? false },
      ),
    );
    out.text(`${host.name}: ${say(r.drained, r.confirmed, flags.lease)}`);
    out.result(true, {
      host: host.name,
      drained: r.drained,
      confirmed: r.confirmed,
      elapsedMs: r.elapsedMs,
      ...(drain ? { leaseMs: flags.lease } : {}),
    });
  } finally {
    interrupt.dispose();
    await connections.close();
  }
}

function say(drained: boolean, confirmed: boolean, lease: number): string {
  const leased = `lease ${formatMs(lease)}`;
  if (!drained) return confirmed ? 'undrained; the balancer has it back in rotation' : 'undrained';
  return confirmed
    ? `drained (${leased}); out of rotation and the overlap has passed: safe to work on`
    : `drained (${leased}); the balancer takes it out within interval × unhealthy_threshold`;
}
