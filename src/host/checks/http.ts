import http from 'node:http';
import https from 'node:https';
import type { CheckConfig } from '../../config/types.js';
import { errorCode, errorDetail, type CheckDeps, type CheckResult } from './result.js';

type HttpCheck = Extract<CheckConfig, { kind: 'http' }>;

/** enough to find the word in a health answer; the rest is never read */
const bodyLimit = 4096;

type Outcome =
  | { readonly kind: 'status'; readonly status: number; readonly draining?: boolean }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'error'; readonly error: unknown };

/**
 * GET the URL within a hard deadline. A 503 is "draining" when its body
 * mentions `draining` or it carries `x-handoff-draining: 1`: the drain
 * handshake working, not a broken service. The body is only searched, never
 * kept: health answers may include connection strings or tokens.
 */
export async function httpCheck(check: HttpCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  let url: URL;
  try {
    url = new URL(check.url);
  } catch {
    return { ok: false, code: 'bad-url', latency_ms: 0, detail: 'the check URL does not parse' };
  }
  const outcome = await probe(url, check.timeout, deps.signal);
  const latency_ms = Math.max(0, deps.clock.now() - started);
  if (outcome.kind === 'timeout') {
    return {
      ok: false,
      code: 'timeout',
      latency_ms,
      detail: `no answer within ${check.timeout} ms`,
    };
  }
  if (outcome.kind === 'error') {
    return {
      ok: false,
      code: errorCode(outcome.error),
      latency_ms,
      detail: errorDetail(outcome.error),
    };
  }
  const ok = outcome.status === check.expectStatus;
  return {
    ok,
    code: ok ? 'ok' : `status-${outcome.status}`,
    latency_ms,
    ...(outcome.draining === undefined ? {} : { draining: outcome.draining }),
    detail: `HTTP ${outcome.status}`,
  };
}

function probe(url: URL, timeoutMs: number, signal: AbortSignal | undefined): Promise<Outcome> {
  return new Promise((resolve) => {
    let settled = false;
    let answered: Outcome | undefined;
    const finish = (outcome: Outcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(outcome);
    };
    // a socket deadline bounds I/O in real time, even under a test's fake clock
    const timer = setTimeout(() => finish(answered ?? { kind: 'timeout' }), timeoutMs);
    const request = url.protocol === 'https:' ? https.request : http.request;
    let req: http.ClientRequest;
    try {
      req = request(url, {
        method: 'GET',
        agent: false,
        headers: { connection: 'close', 'user-agent': 'handoff-check' },
        ...(signal ? { signal } : {}),
      });
    } catch (error) {
      // an unsupported protocol throws before any I/O
      clearTimeout(timer);
      resolve({ kind: 'error', error });
      return;
    }
    req.on('error', (error) => finish({ kind: 'error', error }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const byHeader = res.headers['x-handoff-draining'] === '1';
      if (status !== 503 || byHeader) {
        finish({ kind: 'status', status, ...(status === 503 ? { draining: true } : {}) });
        return;
      }
      answered = { kind: 'status', status, draining: false };
      let seen = '';
      const search = (): void =>
        finish({ kind: 'status', status, draining: /draining/i.test(seen) });
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => {
        seen += chunk;
        if (/draining/i.test(seen) || seen.length >= bodyLimit) search();
      });
      res.on('end', search);
      res.on('error', search);
    });
    req.end();
  });
}
