import type { ServiceStatus } from './runtime.js';

/** One container as `docker compose ps --format json` describes it. */
export interface ComposeContainer {
  readonly service: string;
  /** running, exited, restarting, paused, created, dead */
  readonly state: string;
  /** '' without a healthcheck; healthy, unhealthy, starting */
  readonly health: string;
}

/**
 * Compose before 2.21 prints one JSON array, later versions one object per
 * line; hosts run either. undefined when the output is neither.
 */
export function parseComposePs(stdout: string): ComposeContainer[] | undefined {
  const text = stdout.trim();
  if (text === '') return [];
  try {
    const parsed: unknown = text.startsWith('[')
      ? JSON.parse(text)
      : text
          .split('\n')
          .filter((l) => l.trim() !== '')
          .map((l) => JSON.parse(l) as unknown);
    if (!Array.isArray(parsed)) return undefined;
    return parsed.map(toContainer);
  } catch {
    return undefined;
  }
}

function toContainer(raw: unknown): ComposeContainer {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  return {
    service: typeof r.Service === 'string' ? r.Service : '',
    state: typeof r.State === 'string' ? r.State.toLowerCase() : 'unknown',
    health: typeof r.Health === 'string' ? r.Health.toLowerCase() : '',
  };
}

/** Every replica must run; one failing healthcheck makes the service unhealthy. */
export function composeServiceStatus(
  containers: readonly ComposeContainer[],
  service: string,
): ServiceStatus {
  const mine = containers.filter((c) => c.service === service);
  if (mine.length === 0) return { state: 'stopped', detail: 'no-container' };
  const down = mine.find((c) => c.state !== 'running');
  if (down) return { state: 'stopped', detail: down.state };
  if (mine.some((c) => c.health === 'unhealthy'))
    return { state: 'unhealthy', detail: 'unhealthy' };
  return { state: 'running', detail: 'running' };
}
