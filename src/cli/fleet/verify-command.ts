import { systemClock } from '../../clock.js';
import { loadConfig } from '../../config/load.js';
import { destinationOf } from '../config-flag.js';
import { BlockedError, OperationError } from '../../errors.js';
import { verifyServices } from '../../host/verify.js';
import { verifyFleet } from '../../verify/fleet.js';
import { renderFleetVerification } from '../../verify/render.js';
import { createOutput } from '../output.js';
import { targetJson } from '../target-json.js';
import { open, type FleetFlags } from '../open-fleet.js';
export async function runVerify(
  flags: FleetFlags & { local?: boolean; verbose?: boolean },
): Promise<void> {
  if (flags.local) return runVerifyLocal(flags);
  const { out, config, hosts, connections } = await open(flags);
  try {
    const balancer = await connections.balancer();
    const result = await verifyFleet(config, hosts, (h) => connections.agent(h), balancer);
    out.text(renderFleetVerification(result, { full: flags.verbose === true }));
    out.result(result.ok, {
      hosts: result.hosts.map(({ balancer: state, target, ...h }) => ({
        ...h,
        target: targetJson(target, state),
      })),
      unreachable: result.unreachable,
      ...(result.release && { release: result.release }),
      otherRelease: result.otherRelease,
    });
    if (result.unreachable.length > 0) {
      // each host's own reason: down, refused our key, or running another agent
      // said here once, one line per host (the table says only "unreachable")
      throw new BlockedError(
        result.hosts
          .filter((h) => !h.reachable)
          .map((h) => `cannot verify ${h.host}: ${h.error ?? 'unreachable'}`)
          .join('\n'),
      );
    }
    if (!result.ok) {
      const bad = result.hosts.flatMap((h) =>
        (h.report?.services ?? []).filter((s) => !s.ok).map((s) => `${h.host}/${s.name}`),
      );
      const out_ = result.hosts
        .filter((h) => h.balancer?.inRotation === false || h.balancer?.state === 'mixed')
        .map((h) =>
          h.balancer?.state === 'mixed'
            ? `${h.host} out of rotation on some balancers (${h.balancer.reason ?? ''})`
            : `${h.host} out of rotation`,
        );
      const behind = result.otherRelease.map(
        (o) => `${o.host} on ${o.release}, not ${result.release ?? '?'}`,
      );
      throw new OperationError(`verify failed: ${[...bad, ...out_, ...behind].join(', ')}`);
    }
  } finally {
    await connections.close();
  }
}

/** On a host, no SSH: every check `verify_successes` times in a row. */
async function runVerifyLocal(flags: FleetFlags): Promise<void> {
  const out = createOutput({ json: flags.json ?? false });
  const config = await loadConfig(flags.config, { log: out, ...destinationOf(flags) });
  const { readLiveRelease } = await import('../../host/releases.js');
  const { createRuntime } = await import('../../host/runtime/create.js');
  const { runtimeSettings } = await import('../../host/runtime/runtime.js');
  const release = await readLiveRelease(config.host.root);
  const runtime = release ? createRuntime(runtimeSettings(config), release) : undefined;
  const { verifyBudget } = await import('../../verify/fleet.js');
  const report = await verifyServices(config, {
    successes: config.rollout.verifySuccesses,
    timeoutMs: verifyBudget(config),
    allowDraining: false,
    clock: systemClock,
    ...(runtime ? { runtime } : {}),
    ...(release ? { release } : {}),
  });
  for (const s of report.services)
    out.text(
      `${s.ok ? '✓' : '✗'} ${s.name.padEnd(20)} ${(s.release ?? '-').padEnd(12)} ${String(s.latency_ms).padStart(5)}ms  ${s.code}${s.detail ? ` (${s.detail})` : ''}${s.draining ? ' (draining)' : ''}`,
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
