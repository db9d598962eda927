import { columnsOf, StatLines } from '../stat-csv.js';
import type { FailureKind } from '../../../evidence/kit/counts.js';
import type { CounterReading } from '../../../evidence/kit/delta.js';

/**
 * The counters of one backend from `show stat` and `show info`: per server
 * the attempts sent to it (`stot`: a server's `req_tot` counts only the
 * requests it answered), the 5xx it answered, the connections it refused
 * (`econ`) and the responses it broke off (`eresp`); and what the backend and
 * frontend rows failed on their own, with no server to blame — the 503 of a
 * backend with no server left. Retries and redispatches are reported as
 * rescued, not failed: the client got an answer from elsewhere. A failure
 * that shows on the backend row alone (its econ or eresp, not a server's,
 * beyond its 503s) is the backend's own too.
 */

export interface HaproxyCounters {
  /** `show info` Pid and Start_time_sec: a reload is a new process with new counters */
  readonly epoch: string;
  readonly servers: ReadonlyMap<string, CounterReading>;
  /** 5xx of the backend and the frontends that no server row accounts for */
  readonly own: CounterReading;
}

type Row = (name: string) => number;

/** what the backend's server rows failed on, in all: what only the backend row holds is beyond it */
type ServerSums = Record<'http_5xx' | 'connect' | 'response', number>;

/**
 * `wanted`: the servers whose readings are kept (default every server of the
 * backend); the others' rows are not split, only their failures summed for
 * the backend's own (a host's window reads its own server of 2 000).
 */
export function parseCounters(
  statCsv: string,
  infoText: string,
  backend: string,
  wanted?: ReadonlySet<string>,
): { ok: true; counters: HaproxyCounters } | { ok: false; reason: string } {
  const lines = new StatLines(statCsv);
  let header = '';
  while (header === '' && lines.next()) if (!lines.blank()) header = lines.line();
  if (!header.startsWith('# pxname,svname,')) return { ok: false, reason: 'no CSV header' };
  const index = columnsOf(header);
  for (const column of ['stot', 'econ', 'eresp', 'hrsp_5xx'])
    if (!index.has(column)) return { ok: false, reason: `no ${column} column` };
  const epoch = processEpoch(infoText);
  if (epoch === undefined) return { ok: false, reason: "'show info' names no Pid" };
  const servers = new Map<string, CounterReading>();
  const sums: ServerSums = { http_5xx: 0, connect: 0, response: 0 };
  let backendRow: Row | undefined;
  let frontend5xx = 0;
  let allBackends5xx = 0;
  const number = (name: string): number => whole(lines.field(index.get(name) ?? -1));
  while (lines.next()) {
    if (lines.blank()) continue;
    const server = lines.server();
    if (server === 'FRONTEND') frontend5xx += number('hrsp_5xx');
    else if (server === 'BACKEND') {
      allBackends5xx += number('hrsp_5xx');
      if (lines.proxy() === backend) backendRow = rowOf(lines.fields(), index).at;
    } else if (lines.proxy() === backend) {
      sums.http_5xx += number('hrsp_5xx');
      sums.connect += number('econ');
      sums.response += number('eresp');
      if (wanted && !wanted.has(server)) continue;
      const row = rowOf(lines.fields(), index);
      servers.set(server, serverReading(epoch, row.at, row.text('rtime')));
    }
  }
  if (backendRow === undefined) return { ok: false, reason: `no backend ${backend}` };
  const own = ownReading(epoch, backendRow, sums, frontend5xx - allBackends5xx);
  return { ok: true, counters: { epoch, servers, own } };
}

/**
 * What the backend and the frontends failed on with no server to blame.
 * `frontendOnly`: the frontends' 5xx beyond every backend's.
 */
function ownReading(
  epoch: string,
  be: Row,
  sums: ServerSums,
  frontendOnly: number,
): CounterReading {
  // a 502/503 haproxy sent for a server's refusal or reset is in the backend's hrsp_5xx,
  // not the server's: only what no server row explains is the backend's own; and a 503
  // for want of a server counts in the backend's econ too
  const noServer = Math.max(0, be('hrsp_5xx') - sums.http_5xx - sums.connect - sums.response);
  return {
    epoch,
    requests: be('stot'),
    kinds: {
      no_server: noServer + Math.max(0, frontendOnly),
      connect: Math.max(0, be('econ') - sums.connect - noServer),
      response: Math.max(0, be('eresp') - sums.response),
    },
  };
}

function rowOf(fields: readonly string[], index: ReadonlyMap<string, number>) {
  const text = (name: string): string => fields[index.get(name) ?? -1] ?? '';
  const at: Row = (name) => whole(text(name));
  return { text, at };
}

function serverReading(epoch: string, at: Row, rtime: string): CounterReading {
  const kinds: Partial<Record<FailureKind, number>> = {
    http_5xx: at('hrsp_5xx'),
    connect: at('econ'),
    response: at('eresp'),
  };
  return {
    epoch,
    requests: at('stot'),
    kinds,
    retried: at('wretr') + at('wredis'),
    ...(rtime !== '' && { latencyMs: whole(rtime) }),
  };
}

function processEpoch(info: string): string | undefined {
  const field = (name: string): string | undefined =>
    new RegExp(`^${name}: *(\\S+)`, 'm').exec(info)?.[1];
  const pid = field('Pid');
  // not Uptime_sec: it changes every second; a new Pid alone still shows a reload
  return pid === undefined ? undefined : `${pid}@${field('Start_time_sec') ?? ''}`;
}

/** an empty cell is a counter haproxy does not keep for that row: zero */
function whole(text: string): number {
  const n = Number(text);
  return text !== '' && Number.isSafeInteger(n) && n >= 0 ? n : 0;
}
