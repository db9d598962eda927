import http from 'node:http';

export interface LoadOptions {
  readonly url: string;
  /** K keep-alive connections, each with one request at a time; default 4 */
  readonly concurrency?: number;
  /** stops by itself after this many requests in all; default 200 000 */
  readonly maxRequests?: number;
  /** stops by itself after this long; default 120 s */
  readonly maxDurationMs?: number;
  /** pause between two requests of one connection; default 5 ms, so checks still get CPU */
  readonly pauseMs?: number;
  /** a request with no answer after this counts as ETIMEDOUT; default 5 s */
  readonly requestTimeoutMs?: number;
  /**
   * A GET that failed with ECONNRESET on a reused keep-alive connection before
   * any answer began is sent once more on a new connection (RFC 9112 §9.3.1):
   * the server closed that idle connection as the request went out (an nginx
   * reload closes its idle keep-alive connections). Node documents this retry
   * (`request.reusedSocket`), and RFC 9110 §9.2.2 lets a client retry an
   * idempotent request automatically. Not on another pooled connection: the
   * same reload may be closing that one too. Counted as `retried`, never
   * hidden; a retry that fails counts as failed. Default false.
   */
  readonly retryIdleReset?: boolean;
}

export interface LoadReport {
  readonly total: number;
  /** 2xx */
  readonly ok: number;
  /** total − ok: every non-2xx and every socket error */
  readonly failed: number;
  /** non-2xx answers by status code */
  readonly statuses: Readonly<Record<string, number>>;
  /** requests that got no answer, by error code (ECONNRESET, ECONNREFUSED, ETIMEDOUT, …) */
  readonly errors: Readonly<Record<string, number>>;
  /** 2xx answers by the `release` in their JSON body */
  readonly releases: Readonly<Record<string, number>>;
  /** 2xx answers by the `host` in their JSON body */
  readonly hosts: Readonly<Record<string, number>>;
  readonly durationMs: number;
  /** requests sent again after an idle keep-alive connection was closed under them (retryIdleReset) */
  readonly retried: number;
  /** the first few failures as they happened, to tell a reload's race from a lost request */
  readonly failures?: readonly Failure[];
}

export interface Failure {
  /** ms since the load started */
  readonly atMs: number;
  /** error code, or the HTTP status */
  readonly what: string;
  /** sent on a kept-alive connection that had served before */
  readonly reused: boolean;
  /** this was the second send of a retried request */
  readonly retry: boolean;
}

const MAX_FAILURES = 20;

export interface Load {
  /** resolves when the load stopped by itself (count or time) or was stopped */
  readonly done: Promise<LoadReport>;
  /** stop sending, wait for the requests in flight, and report */
  stop(): Promise<LoadReport>;
  /** the counts so far, while it runs */
  snapshot(): LoadReport;
}

type Outcome =
  | { status: number; body: string; reused: boolean }
  | { error: string; idleReset?: boolean; reused: boolean };

/** `agent: false`: a connection of its own, never one from the pool */
function once(url: string, agent: http.Agent | false, timeoutMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = http.get(url, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      const reused = req.reusedSocket;
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, reused }));
      res.on('error', (e: NodeJS.ErrnoException) =>
        resolve({ error: e.code ?? e.message, reused }),
      );
    });
    req.setTimeout(timeoutMs, () =>
      req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
    );
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? e.message;
      // no response yet (a 'response' error goes through res): nothing of it was read
      const reused = req.reusedSocket;
      resolve({ error: code, idleReset: reused && code === 'ECONNRESET', reused });
    });
  });
}

const bump = (counts: Record<string, number>, key: string): void => {
  counts[key] = (counts[key] ?? 0) + 1;
};

/**
 * Hammers `url` over K keep-alive connections, like the clients of a real
 * balancer, and counts what a user would see. Bounded in count and time: it
 * stops by itself even if nobody calls stop().
 */
export function startLoad(options: LoadOptions): Load {
  const concurrency = options.concurrency ?? 4;
  const maxRequests = options.maxRequests ?? 200_000;
  const deadline = Date.now() + (options.maxDurationMs ?? 120_000);
  const pauseMs = options.pauseMs ?? 5;
  const timeoutMs = options.requestTimeoutMs ?? 5000;
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const started = Date.now();
  let sent = 0;
  let total = 0;
  let ok = 0;
  let retried = 0;
  let stopping = false;
  let endedAt: number | undefined;
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const releases: Record<string, number> = {};
  const hosts: Record<string, number> = {};
  const failures: Failure[] = [];
  const failed = (what: string, o: Outcome, retry: boolean): void => {
    if (failures.length < MAX_FAILURES)
      failures.push({ atMs: Date.now() - started, what, reused: o.reused, retry });
  };

  const record = (o: Outcome, retry: boolean): void => {
    total++;
    if ('error' in o) {
      failed(o.error, o, retry);
      return bump(errors, o.error);
    }
    if (o.status < 200 || o.status > 299) {
      failed(String(o.status), o, retry);
      return bump(statuses, String(o.status));
    }
    ok++;
    try {
      const body = JSON.parse(o.body) as { release?: unknown; host?: unknown };
      if (typeof body.release === 'string') bump(releases, body.release);
      if (typeof body.host === 'string') bump(hosts, body.host);
    } catch {
      // a 2xx without JSON still counts as ok
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopping && sent < maxRequests && Date.now() < deadline) {
      sent++;
      let outcome = await once(options.url, agent, timeoutMs);
      const retry = options.retryIdleReset === true && 'error' in outcome && !!outcome.idleReset;
      if (retry) {
        retried++;
        // a new connection: another pooled one may be closing under the same reload
        outcome = await once(options.url, false, timeoutMs);
      }
      record(outcome, retry);
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  const loops = Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
    endedAt = Date.now();
    agent.destroy();
  });

  const snapshot = (): LoadReport => ({
    total,
    ok,
    failed: total - ok,
    statuses: { ...statuses },
    errors: { ...errors },
    releases: { ...releases },
    hosts: { ...hosts },
    durationMs: (endedAt ?? Date.now()) - started,
    retried,
    failures: [...failures],
  });
  return {
    snapshot,
    done: loops.then(snapshot),
    stop: async () => {
      stopping = true;
      await loops;
      return snapshot();
    },
  };
}

/** One line for a test failure message or the CLI. */
export function formatReport(r: LoadReport): string {
  const parts = [`${r.total} requests in ${r.durationMs} ms: ${r.ok} ok, ${r.failed} failed`];
  if (r.retried > 0) parts.push(`${r.retried} sent again after an idle connection was closed`);
  if (Object.keys(r.statuses).length > 0) parts.push(`statuses ${JSON.stringify(r.statuses)}`);
  if (Object.keys(r.errors).length > 0) parts.push(`errors ${JSON.stringify(r.errors)}`);
  parts.push(`hosts ${JSON.stringify(r.hosts)}`, `releases ${JSON.stringify(r.releases)}`);
  if (r.failures?.length)
    parts.push(
      `failures ${r.failures.map((f) => `${f.what}@${f.atMs}ms${f.reused ? ' reused' : ' new'}${f.retry ? ' retry' : ''}`).join(', ')}`,
    );
  return parts.join('; ');
}

/** Two loads' counts as one: the frontends of a pair, or one load's runs before and after. */
export function addReports(a: LoadReport, b: LoadReport): LoadReport {
  const add = (x: Readonly<Record<string, number>>, y: Readonly<Record<string, number>>) => {
    const out: Record<string, number> = { ...x };
    for (const [k, v] of Object.entries(y)) out[k] = (out[k] ?? 0) + v;
    return out;
  };
  return {
    total: a.total + b.total,
    ok: a.ok + b.ok,
    failed: a.failed + b.failed,
    statuses: add(a.statuses, b.statuses),
    errors: add(a.errors, b.errors),
    releases: add(a.releases, b.releases),
    hosts: add(a.hosts, b.hosts),
    durationMs: Math.max(a.durationMs, b.durationMs),
    retried: a.retried + b.retried,
    failures: [...(a.failures ?? []), ...(b.failures ?? [])],
  };
}
