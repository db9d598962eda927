import type { ServiceStatus } from './runtime.js';

/** One container as `compose ps` describes it. */
export interface ComposeContainer {
  readonly service: string;
  /** running, exited, restarting, paused, created, dead */
  readonly state: string;
  /** '' without a healthcheck; healthy, unhealthy, starting */
  readonly health: string;
  /** an exited container's code (137: it needed SIGKILL), when ps says it */
  readonly exitCode?: number;
}

/**
 * Hosts run any compose: v2 before 2.21 prints one JSON array, later v2 one
 * object per line, podman-compose the JSON array of `podman ps` (service in a
 * label), docker-compose 1.x only its table. undefined when the output is none
 * of these. `project` names 1.x's containers: `<project>_<service>_<n>`.
 */
export function parseComposePs(stdout: string, project = ''): ComposeContainer[] | undefined {
  const text = stdout.trim();
  if (text === '') return [];
  if (!text.startsWith('[') && !text.startsWith('{')) return parseTable(text, project);
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
  const labels = (typeof r.Labels === 'object' && r.Labels !== null ? r.Labels : {}) as Record<
    string,
    unknown
  >;
  const label = labels['com.docker.compose.service'];
  const exitCode = typeof r.ExitCode === 'number' ? r.ExitCode : undefined;
  return {
    service: typeof r.Service === 'string' ? r.Service : typeof label === 'string' ? label : '',
    state: typeof r.State === 'string' ? r.State.toLowerCase() : 'unknown',
    health: typeof r.Health === 'string' ? r.Health.toLowerCase() : '',
    ...(exitCode === undefined ? {} : { exitCode }),
  };
}

/**
 * docker-compose 1.x: `Name  Command  State  Ports`, a dashed line, one row a
 * container. Its header words are centred and Command is cut with `...`, so
 * columns are not where the header says: State is the first cell, two spaces
 * apart, that reads `Up`, `Up (healthy)`, `Exit 137`, `Restarting`, `Paused`.
 */
const V1_STATE =
  /\s{2,}(Up(?: \([^)]*\))?|Exit -?\d+|Restarting|Paused|Created|Dead|Ghost)(?=\s{2,}|\s*$)/;

function parseTable(text: string, project: string): ComposeContainer[] | undefined {
  const lines = text.split('\n');
  if (!/^\s*Name\s+Command\s+State\b/.test(lines[0] ?? '') || !/^-+$/.test(lines[1]?.trim() ?? ''))
    return undefined;
  const rows = lines.slice(2).filter((l) => l.trim() !== '');
  const containers: ComposeContainer[] = [];
  for (const line of rows) {
    const state = V1_STATE.exec(line)?.[1];
    if (state === undefined) return undefined;
    const name = line.trim().split(/\s+/)[0] ?? '';
    containers.push({ service: serviceOfName(name, project), ...tableState(state) });
  }
  return containers;
}

/** `<project>_<service>_<n>`; 1.x renames a container it recreates to `<short id>_<name>` */
function serviceOfName(full: string, project: string): string {
  const name = full.replace(/^[0-9a-f]{12}_/, '');
  const rest = project && name.startsWith(`${project}_`) ? name.slice(project.length + 1) : name;
  return rest.replace(/_\d+$/, '');
}

function tableState(state: string): Omit<ComposeContainer, 'service'> {
  const health = /\((healthy|unhealthy|health: starting)\)/.exec(state)?.[1] ?? '';
  const cleanHealth = health.replace('health: ', '');
  if (/^Up\b/.test(state)) return { state: 'running', health: cleanHealth };
  const exit = /^Exit (-?\d+)/.exec(state);
  if (exit) return { state: 'exited', health: '', exitCode: Number(exit[1]) };
  const word = state.split(/\s+/)[0]?.toLowerCase() ?? '';
  return { state: word || 'unknown', health: cleanHealth };
}

/** Every replica must run; one failing healthcheck makes the service unhealthy. */
export function composeServiceStatus(
  containers: readonly ComposeContainer[],
  service: string,
): ServiceStatus {
  const mine = containers.filter((c) => c.service === service);
  if (mine.length === 0) return { state: 'stopped', detail: 'no-container' };
  const down = mine.find((c) => c.state !== 'running');
  if (down) {
    const code = down.exitCode === undefined ? '' : `-${down.exitCode}`;
    return { state: 'stopped', detail: `${down.state}${code}` };
  }
  if (mine.some((c) => c.health === 'unhealthy'))
    return { state: 'unhealthy', detail: 'unhealthy' };
  return { state: 'running', detail: 'running' };
}
