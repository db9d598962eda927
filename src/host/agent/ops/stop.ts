import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { checkAddress, probeListening } from '../../checks/listening.js';
import { recordLastStop } from '../../last-stop.js';
import { readLiveRelease } from '../../releases.js';
import { createRuntime } from '../../runtime/create.js';
import { runtimeSettings, type Runtime } from '../../runtime/runtime.js';
import { proveStopped } from '../../stop-proof.js';
import { sendEvent, type AgentIO } from '../io.js';
import type { StopReport } from '../../../protocol/results.js';

/** a stop that used all of stop_timeout still gets this long for its sockets to close */
const PROOF_GRACE = 2_000;

const nothing: StopReport = { stopped: false, adopted: [], services: [], proven: true };

/**
 * Stop the live release's services and prove they stopped (stop-proof.ts).
 * A host with no release yet whose services already answer — started by hand
 * or by another tool before handoff — is adopted: they are stopped with the
 * configured stop of `release` (the one about to start) and proven stopped
 * the same way, or the new release would start beside them, fail to bind,
 * and verify would pass against the old process. The report says what was
 * not proven; the orchestrator fails the host on it.
 */
export async function stop(
  config: Config,
  clock: Clock,
  io: AgentIO,
  args: { release?: string; signal?: AbortSignal },
): Promise<StopReport> {
  const settings = runtimeSettings(config);
  const live = await readLiveRelease(config.host.root);
  let runtime: Runtime;
  let adopted: string[] = [];
  if (live) runtime = createRuntime(settings, live);
  else {
    if (args.release === undefined) return nothing;
    runtime = createRuntime(settings, args.release);
    adopted = await answering(config, runtime);
    if (adopted.length === 0) return nothing;
    const one = adopted.length === 1;
    sendEvent(
      io,
      'warn',
      'adopt',
      `adopting: ${adopted.join(', ')} already answer${one ? 's' : ''}; stopping ${one ? 'it' : 'them'} before the first release`,
      { services: adopted },
    );
  }
  const started = clock.now();
  const options = args.signal ? { signal: args.signal } : {};
  if (live) await runtime.stop(undefined, options);
  else {
    // only what was found running: never a stop command (a pkill pattern) for a service
    // handoff never saw on a host it never managed; in reverse order, like every stop
    for (const s of [...config.services].reverse())
      if (adopted.includes(s.name)) await runtime.stop(s.name, options);
  }
  const deadline = Math.max(started + config.drain.stopTimeout, clock.now() + PROOF_GRACE);
  const services = await proveStopped(config.services, {
    clock,
    deadline,
    runtime,
    ...(args.signal ? { signal: args.signal } : {}),
  });
  const killed = services.filter((p) => p.killed).map((p) => p.service);
  if (killed.length > 0) {
    const one = killed.length === 1;
    sendEvent(
      io,
      'warn',
      'stop.killed',
      `${killed.join(', ')} needed SIGKILL: ${one ? 'it' : 'they'} did not exit within drain.stop_timeout (${Math.round(config.drain.stopTimeout / 1000)}s) of SIGTERM, and requests still in flight were cut; run ${one ? 'it' : 'them'} with init: true, or make ${one ? 'it' : 'them'} exit on SIGTERM`,
      { services: killed },
    );
  }
  await recordLastStop(config.host.state, {
    at: new Date(clock.now()).toISOString(),
    release: live ?? args.release ?? '',
    killed,
  });
  return { stopped: true, adopted, services, proven: services.every((p) => p.proven) };
}

/** Services that run although no release is live: their address accepts, or their status says running. */
async function answering(config: Config, runtime: Runtime): Promise<string[]> {
  const found = await Promise.all(
    config.services.map(async (s) => {
      const address = s.stopProof ? checkAddress(s.check) : undefined;
      if (address && (await probeListening(address, 1_000)) === 'listening') return s.name;
      // the runtime's own bound for a status command (30 s): unknown must not read as stopped
      const status = await runtime.status(s.name);
      return status.state === 'stopped' ? undefined : s.name;
    }),
  );
  return found.filter((name): name is string => name !== undefined);
}
