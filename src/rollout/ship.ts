import type { HostAgent, LocalArtifact, ShipResult } from '../agent-client/host-agent.js';
import type { HostConfig } from '../config/types.js';
import { OperationError } from '../errors.js';
import type { Log } from '../log.js';

/** At most `limit` calls of the returned function run at once; the rest wait in order. */
export function limiter(limit: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (fn) => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    running += 1;
    try {
      return await fn();
    } finally {
      running -= 1;
      waiting.shift()?.();
    }
  };
}

const MB = 1024 * 1024;
export const megabytes = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;

/**
 * Progress of one upload as events: at the start, each further tenth, and
 * the end — enough to see a slow host, not a line per 64 KiB.
 */
export function progressReporter(
  log: Log,
  host: string,
  release: string,
): (sent: number, total: number) => void {
  let shown = -1;
  return (sent, total) => {
    const tenth = total > 0 ? Math.floor((sent / total) * 10) : 10;
    if (tenth <= shown) return;
    shown = tenth;
    log.emit({
      level: 'info',
      event: 'artifact.progress',
      host,
      message: `uploading release ${release}: ${megabytes(sent)} of ${megabytes(total)}`,
      fields: { release, bytes: sent, total },
    });
  };
}

/**
 * Ships the artifact to one host at prepare, before it is drained: at most
 * `rollout.upload_concurrency` uploads run at once across the rollout.
 */
export function artifactShipper(
  log: Log,
  artifact: LocalArtifact,
  release: string,
  concurrency: number,
  signal?: AbortSignal,
): (host: HostConfig, agent: HostAgent) => Promise<ShipResult> {
  const slot = limiter(concurrency);
  return (host, agent) => {
    if (!agent.shipArtifact)
      throw new OperationError(`${host.name}: this agent cannot receive an artifact`);
    const ship = agent.shipArtifact.bind(agent);
    return slot(() => {
      // interrupted (Ctrl-C): an upload still waiting for its turn never starts
      if (signal?.aborted)
        return Promise.reject(
          new OperationError(`${host.name}: interrupted before the artifact was uploaded`),
        );
      return ship(release, artifact, progressReporter(log, host.name, release));
    });
  };
}

/** The prepare step's line: what the artifact cost this host. */
export function describeShip(r: ShipResult | undefined): { detail?: string } {
  if (!r) return {};
  return { detail: r.uploaded ? `artifact uploaded (${megabytes(r.bytes)})` : 'artifact present' };
}
