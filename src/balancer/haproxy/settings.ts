import type { HealthCheckSettings } from '../../config/types.js';
import type { BackendChecks } from './config-file.js';
import type { StatRow } from './stat-csv.js';

/** A backend's health-check settings, with what its config file says of a drain. */
export interface HaproxyHealthCheck extends HealthCheckSettings {
  /** where the config sets `on-marked-down shutdown-sessions` (file and line): a server marked down has every session on it killed */
  readonly shutdownSessionsOnDown?: string;
  /**
   * where `http-check disable-on-404` is set (a 404 soft-stops the server,
   * NOLB), false when the backend has none; undefined when no config file was read
   */
  readonly disableOn404?: string | false;
  /** where persistence (`cookie`, `stick`) is set in a backend without `option redispatch` (or with `retries 0`) */
  readonly persistWithoutRedispatch?: string;
}

/**
 * The settings in force for a backend, from the two sources there are: the
 * running haproxy (rise and fall of each checked server) and either its
 * config file (inter, timeout check) or, without one, what deploy.yml says.
 * When servers differ, the slowest wins: the timing model bounds its waits
 * with these numbers, and a bound too short reads a slow drain as a failure.
 */
export type SettingsSource =
  | { readonly kind: 'file'; readonly path: string; readonly checks: BackendChecks }
  | { readonly kind: 'deploy.yml'; readonly healthCheck: HealthCheckSettings };

export function combineSettings(
  backend: string,
  live: readonly StatRow[],
  source: SettingsSource,
): { ok: true; settings: HaproxyHealthCheck } | { ok: false; reason: string } {
  const checked = live.filter((r) => r.rise !== undefined && r.fall !== undefined);
  if (source.kind === 'deploy.yml') {
    const { healthCheck } = source;
    return {
      ok: true,
      settings: {
        ...healthCheck,
        unhealthyThreshold: max(
          checked.map((r) => r.fall),
          healthCheck.unhealthyThreshold,
        ),
        healthyThreshold: max(
          checked.map((r) => r.rise),
          healthCheck.healthyThreshold,
        ),
      },
    };
  }
  const { checks, path } = source;
  const disagreement = fileDisagrees(backend, checked, source);
  if (disagreement) return { ok: false, reason: disagreement };
  const servers = [...checks.servers.values()].filter((s) => s.check);
  if (servers.length === 0)
    return { ok: false, reason: `no server in ${backend} has 'check' in ${path}` };
  const interval = max(
    servers.map((s) => s.inter),
    0,
  );
  // without `timeout check`, inter bounds the whole check; with it, the answer
  // may take `timeout check` once connected (the connect itself is bounded by
  // min(timeout connect, inter), instant for a host that is up, so left out
  // here: counting it would make `deploy infra apply` never agree with itself)
  const timeout = checks.timeoutCheck ?? interval;
  const slowStarts = servers.map((s) => s.slowstart).filter((s) => s !== undefined);
  const kills = servers.find((s) => s.shutdownSessions !== undefined)?.shutdownSessions;
  return {
    ok: true,
    settings: {
      interval,
      timeout,
      unhealthyThreshold: max(
        servers.map((s) => s.fall),
        1,
      ),
      healthyThreshold: max(
        servers.map((s) => s.rise),
        1,
      ),
      ...(slowStarts.length > 0 ? { slowStart: max(slowStarts, 0) } : {}),
      ...(kills !== undefined && { shutdownSessionsOnDown: `${path} ${kills}` }),
      disableOn404: checks.disableOn404 === undefined ? false : `${path} ${checks.disableOn404}`,
      ...(checks.persistWithoutRedispatch !== undefined && {
        persistWithoutRedispatch: `${path} ${checks.persistWithoutRedispatch}`,
      }),
    },
  };
}

/** Where the config file and the running haproxy disagree on a checked server, in one line. */
function fileDisagrees(
  backend: string,
  checked: readonly StatRow[],
  { checks, path }: Extract<SettingsSource, { kind: 'file' }>,
): string | undefined {
  for (const row of checked) {
    const file = checks.servers.get(row.server);
    if (!file)
      return `${path} has no server ${row.server} in ${backend}, but the running haproxy has`;
    for (const key of ['fall', 'rise'] as const) {
      if (file[key] !== row[key])
        return `${path} says ${key} ${file[key]} for ${backend}/${row.server} but the running haproxy uses ${row[key]}`;
    }
  }
  return undefined;
}

function max(values: readonly (number | undefined)[], fallback: number): number {
  const known = values.filter((v) => v !== undefined);
  return known.length > 0 ? Math.max(...known) : fallback;
}
