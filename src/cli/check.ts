import type { Config, HealthCheckSettings } from '../config/types.js';
import { InvariantError, UsageError } from '../errors.js';
import {
  renderInvariants,
  renderTimeline,
  timingInputFromConfig,
  timingModel,
} from '../timing/index.js';
import { stopProofMethods } from '../host/stop-proof.js';
import {
  killedAtLastStop,
  readLastStops,
  renderLastStops,
  type ReadLastStop,
} from './check-last-stops.js';
import type { Output } from './output.js';

/** the finding --strict fails on when a service needed SIGKILL at its last stop */
const KILLED_AT_STOP = 'stop-needed-sigkill';

interface StopProofLine {
  readonly service: string;
  readonly proven: boolean;
  /** what must hold after stop, within drain.stop_timeout */
  readonly by: readonly string[];
}

/** Which services a rollout proves stopped, and by what. */
function stopProofs(config: Config): StopProofLine[] {
  return config.services.map((s) => {
    const by = stopProofMethods(s, config.runtime);
    return { service: s.name, proven: by.length > 0, by };
  });
}

function renderStopProofs(lines: readonly StopProofLine[], stopTimeout: number): string {
  const width = Math.max(...lines.map((l) => l.service.length));
  const rows = lines.map(
    (l) =>
      `  ${l.service.padEnd(width)}  ${l.proven ? l.by.join(', ') : 'NOT proven (stop_proof: false): a stop that exits 0 is taken at its word'}`,
  );
  return [`stop proof: after stop, within ${stopTimeout / 1000}s`, ...rows].join('\n');
}

async function settingsFor(
  config: Config,
  live: boolean,
  out: Output,
): Promise<{ settings: HealthCheckSettings; source: string }> {
  if (live && config.balancer.kind !== 'static') {
    const [{ createBalancer }, { systemClock }] = await Promise.all([
      import('../balancer/create.js'),
      import('../clock.js'),
    ]);
    const balancer = await createBalancer(config, { clock: systemClock, log: out });
    try {
      return {
        settings: await balancer.settings(),
        source: `live from the ${config.balancer.kind} balancer`,
      };
    } finally {
      await balancer.close();
    }
  }
  if (!config.balancer.healthCheck) {
    throw new UsageError(
      `balancer.kind ${config.balancer.kind} has no health-check settings in ${config.source}: run 'deploy check --live', or add interval, timeout, unhealthy_threshold and healthy_threshold under balancer`,
    );
  }
  return { settings: config.balancer.healthCheck, source: `from ${config.source}` };
}

/** Print the timeline and the invariants; throw InvariantError (exit 1) when one fails. */
export async function runCheck(
  config: Config,
  out: Output,
  options: { live: boolean; strict: boolean; readLastStop?: ReadLastStop },
): Promise<void> {
  const { settings, source } = await settingsFor(config, options.live, out);
  const model = timingModel(timingInputFromConfig(config, settings));
  const failing = model.invariants.filter(
    (i) => !i.ok && (i.severity === 'error' || options.strict),
  );
  out.text(`health-check settings ${source}\n`);
  out.text(renderTimeline(model.timeline));
  out.text('');
  out.text(renderInvariants(model.invariants));
  const proofs = stopProofs(config);
  out.text('');
  out.text(renderStopProofs(proofs, config.drain.stopTimeout));
  const lastStops =
    options.live && options.readLastStop
      ? await readLastStops(config, options.readLastStop)
      : undefined;
  if (lastStops) renderLastStops(lastStops, out);
  const killed = lastStops && options.strict ? killedAtLastStop(lastStops) : [];
  out.result(failing.length === 0 && killed.length === 0, {
    timeline: model.timeline,
    invariants: model.invariants,
    settings,
    stop_proof: proofs,
    ...(lastStops ? { last_stops: lastStops } : {}),
  });
  if (failing.length > 0 || killed.length > 0) {
    const ids = [
      ...new Set(failing.map((i) => i.id)),
      ...(killed.length > 0 ? [KILLED_AT_STOP] : []),
    ];
    throw new InvariantError(
      ids,
      `invariant ${ids.join(', ')} ${ids.length === 1 ? 'fails' : 'fail'}${options.strict ? ' (--strict)' : ''}`,
    );
  }
}
