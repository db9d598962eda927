import http from 'node:http';
import type { CheckConfig } from '../../config/types.js';
import {
  clip,
  DRAINING_HEADER,
  releaseClaim,
  releaseMismatch,
  VERIFIED_HEADER,
  VERIFY_HEADER,
  VERIFY_TOKEN_HEADER,
  type ReleaseClaim,
} from './http-headers.js';
import { errorCode, errorDetail, type CheckDeps, type CheckResult } from './result.js';
import { verifyToken } from './verify-token.js';

type HttpCheck = Extract<CheckConfig, { kind: 'http' }>;

/**
 * The statuses a drain answers with (deploy.yml `drain.answer`): 503, or 404
 * where the balancer reads it as a soft stop. Either is a drain only when it
 * says so; a bare 404 is a wrong URL, as before.
 */
const isDrainStatus = (status: number): boolean => status === 503 || status === 404;

/** enough to find the word in a health answer; the rest is never read */
const bodyLimit = 4096;

type Outcome =
  | {
      readonly kind: 'status';
      readonly status: number;
      /** it says it is draining: the header, or (a 503 or 404) the word in its body */
      readonly saysDraining: boolean;
      /** the service answered a verify with its real readiness */
      readonly verified: boolean;
      readonly claim: ReleaseClaim;
    }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'error'; readonly error: unknown };

/**
 * GET the URL within a hard deadline, with `x-handoff-verify: 1`. A 503 (or
 * the 404 of `drain.answer: 404`) is
 * "draining" when its body mentions `draining` or it carries
 * `x-handoff-draining: 1`: the drain handshake working, not a broken service;
 * unless the service marked the answer as its real readiness
 * (`x-handoff-verified: 1`), which is then taken as it is. With
 * `expect_release`, an answer (or a drain) counts only from the release that
 * should be live. The body is only searched, never kept: health answers may
 * include connection strings or tokens.
 */
export async function httpCheck(check: HttpCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  let url: URL;
  try {
    url = new URL(check.url);
  } catch {
    return { ok: false, code: 'bad-url', latency_ms: 0, detail: 'the check URL does not parse' };
  }
  // never in a detail or a log line: a stranger holding it sees what verify sees
  const token = await verifyToken(deps.state);
  const outcome = await probe(url, check.timeout, deps.signal, token);
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
  return judge(check, outcome, deps, latency_ms);
}

function judge(
  check: HttpCheck,
  outcome: Extract<Outcome, { kind: 'status' }>,
  deps: CheckDeps,
  latency_ms: number,
): CheckResult {
  const { status, claim } = outcome;
  const ok = status === check.expectStatus;
  // a real-readiness answer is never excused by a drain
  const excused = isDrainStatus(status) && outcome.saysDraining && !outcome.verified;
  const release = claim.kind === 'one' ? { release: clip(claim.release) } : {};
  const unnamed = claim.kind === 'none' && deps.releaseOptional === true;
  if (check.expectRelease && (ok || excused) && !unnamed) {
    const mismatch = releaseMismatch(claim, deps.release);
    if (mismatch !== null)
      return { ok: false, code: 'release-mismatch', latency_ms, ...release, detail: mismatch };
  }
  // a drained service answering its real readiness says so too: shown, never an excuse
  const draining = isDrainStatus(status)
    ? { draining: excused }
    : ok && outcome.saysDraining
      ? { draining: true }
      : {};
  return {
    ok,
    code: ok ? 'ok' : `status-${status}`,
    latency_ms,
    ...draining,
    ...release,
    detail: `HTTP ${status}${outcome.verified ? ' (real readiness)' : ''}`,
  };
}

/** The check's GET: no pooled socket, handoff's verify headers, `signal` to abort it. */
function checkRequest(
  url: URL,
  signal: AbortSignal | undefined,
  token: string | undefined,
): http.ClientRequest {
  // node:https (and tls with it) only for an https URL: loading it costs a watchdog tick
  // about a third of a bare node's CPU (docs/benchmarks.md), and most checks are http
  const request =
    url.protocol === 'https:' ? process.getBuiltinModule('node:https').request : http.request;
  return request(url, {
    method: 'GET',
    agent: false,
    headers: {
      connection: 'close',
      'user-agent': 'handoff-check',
      [VERIFY_HEADER]: '1',
      ...(token !== undefined && { [VERIFY_TOKEN_HEADER]: token }),
    },
    ...(signal ? { signal } : {}),
  });
}

function probe(
  url: URL,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  token: string | undefined,
): Promise<Outcome> {
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
    let req: http.ClientRequest;
    try {
      req = checkRequest(url, signal, token);
    } catch (error) {
      // an unsupported protocol throws before any I/O
      clearTimeout(timer);
      resolve({ kind: 'error', error });
      return;
    }
    req.on('error', (error) => finish({ kind: 'error', error }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const base = {
        kind: 'status' as const,
        status,
        verified: res.headers[VERIFIED_HEADER] === '1',
        claim: releaseClaim(res),
      };
      const byHeader = res.headers[DRAINING_HEADER] === '1';
      if (!isDrainStatus(status) || byHeader) {
        finish({ ...base, saysDraining: byHeader });
        return;
      }
      answered = { ...base, saysDraining: false };
      let seen = '';
      const search = (): void => finish({ ...base, saysDraining: /draining/i.test(seen) });
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
