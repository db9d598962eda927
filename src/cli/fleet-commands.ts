import { systemClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { toHostJson } from '../config/serialize.js';
import type { Config, HostConfig } from '../config/types.js';
import { BlockedError, HandoffError, OperationError } from '../errors.js';
import { mapLimit } from '../fleet/map-limit.js';
import { setupHost } from '../fleet/setup.js';
import { selectHosts } from '../rollout/plan.js';
import { verifyServices } from '../host/verify.js';
import { verifyFleet } from '../verify/fleet.js';
import { renderFleetVerification } from '../verify/render.js';
import { readAgentBundle } from './agent-bundle.js';
import { Fleet, hostConfigPath, whoAmI } from './fleet.js';
import { createOutput, type Output } from './output.js';

export interface FleetFlags {
  readonly config: string;
  readonly hosts?: string;
  readonly json?: boolean;
}

async function open(
  flags: FleetFlags,
  options: { checkAgent: boolean } = { checkAgent: true },
): Promise<{ out: Output; config: Config; hosts: HostConfig[]; fleet: Fleet }> {
  const out = createOutput({ json: flags.json ?? false });
  const config = await loadConfig(flags.config, { log: out });
  const names = flags.hosts
    ?.split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const hosts = selectHosts(config.hosts, names);
  // every command but setup refuses a host whose agent is not this deploy's
  const expected = options.checkAgent ? (await readAgentBundle()).sha256 : undefined;
  return { out, config, hosts, fleet: new Fleet(config, out, expected) };
}

const messageOf = (e: unknown): string =>
  e instanceof HandoffError || e instanceof Error ? e.message : String(e);

export async function runSetup(flags: FleetFlags): Promise<void> {
  const { out, config, hosts, fleet } = await open(flags, { checkAgent: false });
  try {
    const bundle = await readAgentBundle();
    // the operator's HANDOFF_* overrides stay on the operator's machine: the host's cron has its own
    const plain = await loadConfig(flags.config, {
      env: process.env.HOME ? { HOME: process.env.HOME } : {},
    });
    const input = {
      config,
      hostConfigJson: toHostJson(plain),
      hostConfigPath: hostConfigPath(config),
      agentBundle: bundle.content,
      log: out,
    };
    const results = await mapLimit(hosts, 8, async (host) => {
      try {
        return await setupHost(host, await fleet.transport(host), await fleet.agent(host), input);
      } catch (error) {
        return { host: host.name, ok: false, changed: [], error: messageOf(error) };
      }
    });
    for (const r of results)
      out.text(
        `${r.ok ? '✓' : '✗'} ${r.host}: ${r.ok ? (r.changed.length ? `installed ${r.changed.join(', ')}` : 'unchanged') : r.error}`,
      );
    out.result(
      results.every((r) => r.ok),
      { hosts: results },
    );
    const failed = results.filter((r) => !r.ok);
    if (failed.length > 0)
      throw new BlockedError(`setup failed on ${failed.map((r) => r.host).join(', ')}`);
  } finally {
    await fleet.close();
  }
}

export async function runVerify(flags: FleetFlags & { local?: boolean }): Promise<void> {
  if (flags.local) return runVerifyLocal(flags);
  const { out, config, hosts, fleet } = await open(flags);
  try {
    const balancer = await fleet.balancer();
    const result = await verifyFleet(config, hosts, (h) => fleet.agent(h), balancer);
    out.text(renderFleetVerification(result));
    out.result(result.ok, { hosts: result.hosts, unreachable: result.unreachable });
    if (result.unreachable.length > 0)
      throw new BlockedError(`cannot verify ${result.unreachable.join(', ')}: unreachable`);
    if (!result.ok) {
      const bad = result.hosts.flatMap((h) =>
        (h.report?.services ?? []).filter((s) => !s.ok).map((s) => `${h.host}/${s.name}`),
      );
      const out_ = result.hosts
        .filter((h) => h.balancer?.inRotation === false)
        .map((h) => `${h.host} out of rotation`);
      throw new OperationError(`verify failed: ${[...bad, ...out_].join(', ')}`);
    }
  } finally {
    await fleet.close();
  }
}

/** On a host, no SSH: every check `verify_successes` times in a row. */
async function runVerifyLocal(flags: FleetFlags): Promise<void> {
  const out = createOutput({ json: flags.json ?? false });
  const config = await loadConfig(flags.config, { log: out });
  const { readLiveRelease } = await import('../host/releases.js');
  const { createRuntime } = await import('../host/runtime/create.js');
  const { runtimeSettings } = await import('../host/runtime/runtime.js');
  const release = await readLiveRelease(config.host.root);
  const runtime = release ? createRuntime(runtimeSettings(config), release) : undefined;
  const { verifyBudget } = await import('../verify/fleet.js');
  const report = await verifyServices(config, {
    successes: config.rollout.verifySuccesses,
    timeoutMs: verifyBudget(config),
    allowDraining: false,
    clock: systemClock,
    ...(runtime ? { runtime } : {}),
  });
  for (const s of report.services)
    out.text(
      `${s.ok ? '✓' : '✗'} ${s.name.padEnd(20)} ${String(s.latency_ms).padStart(5)}ms  ${s.code}${s.draining ? ' (draining)' : ''}`,
    );
  out.result(report.ok, { ...report });
  if (!report.ok)
    throw new OperationError(
      `verify failed: ${report.services
        .filter((s) => !s.ok)
        .map((s) => s.name)
        .join(', ')}`,
    );
}

export async function runStatus(flags: FleetFlags): Promise<void> {
  const { out, config, hosts, fleet } = await open(flags);
  try {
    const balancer = await fleet.balancer();
    const states = await balancer.states(config.hosts.map((h) => h.target));
    const rows = await mapLimit(hosts, 16, async (host) => {
      try {
        return {
          host: host.name,
          status: await (await fleet.agent(host)).status(),
          target: states.get(host.target),
        };
      } catch (error) {
        return { host: host.name, error: messageOf(error), target: states.get(host.target) };
      }
    });
    for (const r of rows) {
      if ('error' in r) {
        out.text(`${r.host}: unreachable: ${r.error}`);
        continue;
      }
      const s = r.status;
      const lock = s.lock.locked
        ? `locked by ${s.lock.holder?.what ?? '?'} since ${s.lock.holder?.since ?? '?'}`
        : 'unlocked';
      const drain = s.draining
        ? `DRAINED by ${s.draining.by} until ${s.draining.until}`
        : 'not drained';
      const target = r.target
        ? `${r.target.state}${r.target.inRotation === null ? '' : r.target.inRotation ? ' (in rotation)' : ' (out of rotation)'}`
        : 'unknown';
      out.text(
        `${r.host}: release ${s.release ?? '-'} (previous ${s.previous ?? '-'}), ${lock}, ${drain}, balancer ${target}`,
      );
    }
    out.result(
      rows.every((r) => !('error' in r)),
      { hosts: rows },
    );
    const unreachable = rows.filter((r) => 'error' in r).map((r) => r.host);
    if (unreachable.length) throw new BlockedError(`unreachable: ${unreachable.join(', ')}`);
  } finally {
    await fleet.close();
  }
}

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

/** `deploy lock status|release` from the operator's machine. */
export async function runLockFleet(
  flags: FleetFlags & { force?: boolean },
  action: 'status' | 'release',
): Promise<void> {
  const { out, hosts, fleet } = await open(flags);
  try {
    const rows = await mapLimit(hosts, 16, async (host) => {
      try {
        const agent = await fleet.agent(host);
        if (action === 'release') {
          const r = await agent.releaseLock(flags.force ?? false);
          return {
            host: host.name,
            ok: true,
            text: r.released ? 'released' : (r.reason ?? 'not locked'),
          };
        }
        const s = await agent.status();
        const h = s.lock.holder;
        return {
          host: host.name,
          ok: true,
          text: s.lock.locked
            ? `held by ${h?.what ?? 'unknown'}${h ? ` (pid ${h.pid}) since ${h.since}${h.message ? `: ${h.message}` : ''}` : ''}`
            : 'free',
        };
      } catch (error) {
        return { host: host.name, ok: false, text: messageOf(error) };
      }
    });
    for (const r of rows) out.text(`${r.ok ? '' : '✗ '}${r.host}: ${r.text}`);
    out.result(
      rows.every((r) => r.ok),
      { hosts: rows },
    );
    const failed = rows.filter((r) => !r.ok);
    if (failed.length > 0)
      throw new BlockedError(`lock ${action} failed on ${failed.map((r) => r.host).join(', ')}`);
  } finally {
    await fleet.close();
  }
}
