import { selectHosts } from '../../rollout/plan.js';
import { whoAmI } from '../fleet.js';
import { open, type FleetFlags } from './open.js';
/** `deploy drain HOST` / `undrain HOST`: an operator's planned drain, under the host lock. */
export async function runDrain(
  flags: FleetFlags & { lease: number },
  hostName: string,
  drain: boolean,
): Promise<void> {
  const { out, config, fleet } = await open(flags);
  const [host] = selectHosts(config.hosts, [hostName]);
  if (!host) return;
  try {
    const agent = await fleet.agent(host);
    const lock = await agent.holdLock(drain ? 'deploy drain' : 'deploy undrain', `by ${whoAmI()}`);
    try {
      const balancer = config.drain.method === 'deregister' ? await fleet.balancer() : undefined;
      if (drain) {
        await agent.drain(`deploy drain by ${whoAmI()}`, flags.lease, '');
        await balancer?.deregister(host.target);
      } else {
        await balancer?.register(host.target);
        await agent.undrain();
      }
    } finally {
      await lock.release();
    }
    out.text(
      `${host.name}: ${drain ? `drained (lease ${Math.round(flags.lease / 60_000)}m); the balancer takes it out within interval × unhealthy_threshold` : 'undrained'}`,
    );
    out.result(true, { host: host.name, drained: drain });
  } finally {
    await fleet.close();
  }
}
