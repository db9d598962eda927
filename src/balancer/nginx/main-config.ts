/**
 * What handoff reads from nginx's main config: where the master writes its
 * pid, and `worker_shutdown_timeout`, the bound on how long a worker from
 * before a reload may keep serving (nginx docs, core module). Only top-level
 * directives count; an `include` of them is not followed (say so, not guess).
 */

export const DEBIAN_MAIN_CONFIG = '/etc/nginx/nginx.conf';
export const DEBIAN_PID_FILE = '/run/nginx.pid';

export interface MainConfig {
  readonly pidFile: string;
  /** ms; absent: nginx waits for every connection of an old worker, however long */
  readonly workerShutdownTimeout?: number;
}

export function readMainConfig(text: string): MainConfig | { readonly error: string } {
  let depth = 0;
  let pidFile = DEBIAN_PID_FILE;
  let workerShutdownTimeout: number | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (depth === 0) {
      const m = /^(pid|worker_shutdown_timeout)\s+([^;\s]+)\s*;/.exec(line);
      if (m?.[1] === 'pid') pidFile = m[2] ?? pidFile;
      if (m?.[1] === 'worker_shutdown_timeout') {
        const ms = nginxTime(m[2] ?? '');
        if (ms === undefined)
          return { error: `worker_shutdown_timeout ${m[2]} is not an nginx time` };
        workerShutdownTimeout = ms;
      }
    }
    depth += (line.match(/\{/g)?.length ?? 0) - (line.match(/\}/g)?.length ?? 0);
  }
  return { pidFile, ...(workerShutdownTimeout !== undefined && { workerShutdownTimeout }) };
}

const units: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** nginx's time syntax (`500ms`, `10s`, `1m30s`; a bare number is seconds) → ms */
export function nginxTime(value: string): number | undefined {
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const parts = [...value.matchAll(/(\d+)(ms|s|m|h|d|w)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) return undefined;
  return parts.reduce((sum, p) => sum + Number(p[1]) * (units[p[2] ?? ''] ?? 0), 0);
}
