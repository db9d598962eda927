import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { RESPONSES_DIR, type ResponseCountsFile } from '../health/response-counts.js';
import type { ServiceReading } from '../protocol/results.js';
import type { Counts, WindowCounts } from './kit/counts.js';
import { addWindows } from './kit/counts.js';

/**
 * The services' own counts on one host: the files the health library's
 * counter writes under `<host.state>/responses/`, one per process. A window
 * is two readings; each process is compared with itself, so a service
 * restarted by the deploy (a new process counting from zero) adds its new
 * counts instead of looking like a reset. A 5xx is a failure; a 4xx is the
 * client's.
 */

export async function readServiceCounts(stateDir: string): Promise<ServiceReading> {
  const dir = path.join(stateDir, RESPONSES_DIR);
  const names = await readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const processes: Record<string, ResponseCountsFile> = {};
  for (const name of names.filter((n) => !n.startsWith('.') && n.endsWith('.json'))) {
    const text = await readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    const file = text === undefined ? undefined : parseCountsFile(text);
    if (file) processes[name.slice(0, -'.json'.length)] = file;
  }
  return { processes };
}

/** a file some other program left there is not a count: skipped */
export function parseCountsFile(text: string): ResponseCountsFile | undefined {
  try {
    const v = JSON.parse(text) as Partial<ResponseCountsFile>;
    const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
    if (v.v !== 1 || !whole(v.requests) || !whole(v.time_ms) || !whole(v.started)) return undefined;
    if (!Array.isArray(v.classes) || v.classes.length !== 5 || !v.classes.every(whole))
      return undefined;
    return v as ResponseCountsFile;
  } catch {
    return undefined;
  }
}

function countsOfFile(f: Pick<ResponseCountsFile, 'requests' | 'classes' | 'time_ms'>): Counts {
  const failed = f.classes[4];
  return {
    requests: f.requests,
    failed,
    kinds: { http_5xx: failed },
    ...(f.requests > 0 && { latencyMs: f.time_ms / f.requests }),
  };
}

/**
 * More requests a second than any one host serves: counts past it (or more
 * failures than requests) are not a service's, whatever wrote the file, and
 * are not judged (the statistics would be meaningless, and once blocked the
 * orchestrator for seconds).
 */
export const MAX_REQUESTS_PER_SECOND = 1_000_000;

export function serviceWindow(
  start: ServiceReading,
  end: ServiceReading,
  host: string,
  windowMs?: number,
): WindowCounts {
  const total = windowOf(start, end, host);
  const counts =
    total.kind === 'counted' ? total.counts : total.kind === 'reset' ? total.since : undefined;
  if (counts === undefined) return total;
  const most =
    windowMs === undefined ? Infinity : Math.max(1, windowMs / 1000) * MAX_REQUESTS_PER_SECOND;
  if (counts.failed > counts.requests)
    return {
      kind: 'unread',
      reason: `${host}: the services' counts are implausible (${counts.failed} failed of ${counts.requests} requests); not judged`,
    };
  if (counts.requests > most)
    return {
      kind: 'unread',
      reason: `${host}: the services' counts are implausible (${counts.requests} requests in ${Math.round((windowMs ?? 0) / 1000)}s, more than ${MAX_REQUESTS_PER_SECOND} a second); not judged`,
    };
  return total;
}

function windowOf(start: ServiceReading, end: ServiceReading, host: string): WindowCounts {
  let total: WindowCounts = { kind: 'counted', counts: { requests: 0, failed: 0 } };
  for (const [key, last] of Object.entries(end.processes)) {
    const first = start.processes[key];
    if (first === undefined) {
      total = addWindows(total, { kind: 'counted', counts: countsOfFile(last) });
      continue;
    }
    const diff = {
      requests: last.requests - first.requests,
      classes: last.classes.map(
        (n, i) => n - (first.classes[i] ?? 0),
      ) as unknown as ResponseCountsFile['classes'],
      time_ms: last.time_ms - first.time_ms,
    };
    total = addWindows(
      total,
      diff.requests < 0 || diff.classes.some((n) => n < 0)
        ? {
            kind: 'reset',
            since: countsOfFile(last),
            reason: `${host}: a service's counts went back`,
          }
        : { kind: 'counted', counts: countsOfFile(diff) },
    );
  }
  const gone = Object.keys(start.processes).filter((k) => end.processes[k] === undefined);
  if (gone.length > 0 && total.kind !== 'unread')
    total = {
      kind: 'reset',
      since: total.kind === 'counted' ? total.counts : total.since,
      reason: `${host}: the counts of ${gone.length} service process(es) were removed during the window`,
    };
  return total;
}
