import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/clock.js';
import { runCheck } from '../../../../src/host/checks/run.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

async function serve(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
}

const answer =
  (status: number, body = '', headers: Record<string, string> = {}): RequestListener =>
  (_req, res) => {
    res.writeHead(status, headers);
    res.end(body);
  };

const deps = { clock: systemClock, state: '/nonexistent', service: 'gateway' };
const check = (
  url: string,
  more: { timeout?: number; expectStatus?: number; expectRelease?: boolean } = {},
) => ({
  kind: 'http' as const,
  url,
  timeout: more.timeout ?? 2_000,
  expectStatus: more.expectStatus ?? 200,
  expectRelease: more.expectRelease ?? false,
});

/** answers with raw header lines, so a header can be repeated */
const rawAnswer =
  (status: number, headers: readonly [string, string][], body = ''): RequestListener =>
  (_req, res) => {
    res.writeHead(
      status,
      headers.flatMap(([k, v]) => [k, v]),
    );
    res.end(body);
  };

describe('the http check', () => {
  it('passes on 200', async () => {
    const result = await runCheck(check(await serve(answer(200, 'ok'))), deps);
    expect(result).toMatchObject({ ok: true, code: 'ok', detail: 'HTTP 200' });
    expect(result.draining).toBeUndefined();
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it('fails on 500 with the status as its code', async () => {
    expect(await runCheck(check(await serve(answer(500, 'boom'))), deps)).toMatchObject({
      ok: false,
      code: 'status-500',
    });
  });

  it('passes on the status it is told to expect', async () => {
    const url = await serve(answer(204));
    expect(await runCheck(check(url, { expectStatus: 204 }), deps)).toMatchObject({
      ok: true,
      code: 'ok',
    });
  });

  it('calls a 503 whose body says draining a drain, not a failure', async () => {
    expect(
      await runCheck(check(await serve(answer(503, '{"status":"draining"}'))), deps),
    ).toMatchObject({
      ok: false,
      code: 'status-503',
      draining: true,
    });
  });

  it('calls a 503 with any other body not draining', async () => {
    expect(await runCheck(check(await serve(answer(503, 'database down'))), deps)).toMatchObject({
      ok: false,
      code: 'status-503',
      draining: false,
    });
  });

  it('calls a 503 with the header x-handoff-draining: 1 a drain whatever its body', async () => {
    const url = await serve(answer(503, '', { 'x-handoff-draining': '1' }));
    expect(await runCheck(check(url), deps)).toMatchObject({ code: 'status-503', draining: true });
  });

  it('calls a 404 that says draining (drain.answer 404) a drain, by header or by word', async () => {
    const byHeader = await serve(answer(404, '', { 'x-handoff-draining': '1' }));
    expect(await runCheck(check(byHeader), deps)).toMatchObject({
      ok: false,
      code: 'status-404',
      draining: true,
    });
    const byWord = await serve(answer(404, '{"status":"draining"}'));
    expect(await runCheck(check(byWord), deps)).toMatchObject({ draining: true });
  });

  it('calls a bare 404 (a wrong URL) not draining', async () => {
    const url = await serve(answer(404, '{"status":"not-found"}'));
    expect(await runCheck(check(url), deps)).toMatchObject({
      ok: false,
      code: 'status-404',
      draining: false,
    });
  });

  it('looks for the word only in the first few KB of the body', async () => {
    const url = await serve(answer(503, `${' '.repeat(64 * 1024)}draining`));
    expect(await runCheck(check(url), deps)).toMatchObject({ code: 'status-503', draining: false });
  });

  it('never puts the response body in its result', async () => {
    const url = await serve(answer(503, 'draining; DATABASE_URL=postgres://admin:hunter2@db'));
    const result = await runCheck(check(url), deps);
    expect(result.draining).toBe(true);
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('times out on a server that never answers', async () => {
    const url = await serve(() => undefined);
    const started = Date.now();
    const result = await runCheck(check(url, { timeout: 200 }), deps);
    expect(result).toMatchObject({ ok: false, code: 'timeout', detail: 'no answer within 200 ms' });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports a closed port as refused', async () => {
    const url = await serve(answer(200));
    const server = servers.pop();
    await new Promise((r) => server?.close(r));
    expect(await runCheck(check(url), deps)).toMatchObject({ ok: false, code: 'refused' });
  });

  it('reports a URL it cannot parse without throwing', async () => {
    expect(await runCheck(check('not a url'), deps)).toMatchObject({ ok: false, code: 'bad-url' });
  });
});

describe('the http check and the drain handshake headers', () => {
  it('asks with x-handoff-verify: 1', async () => {
    let seen: string | string[] | undefined;
    const url = await serve((req, res) => {
      seen = req.headers['x-handoff-verify'];
      res.end('ok');
    });
    await runCheck(check(url), deps);
    expect(seen).toBe('1');
  });

  it('takes a 503 marked as real readiness as a failure even when it says draining', async () => {
    const url = await serve(
      answer(503, 'failing', { 'x-handoff-draining': '1', 'x-handoff-verified': '1' }),
    );
    const result = await runCheck(check(url), deps);
    expect(result).toMatchObject({ ok: false, code: 'status-503', draining: false });
    expect(result.detail).toBe('HTTP 503 (real readiness)');
  });

  it('passes a 200 marked as real readiness while the service is drained', async () => {
    const url = await serve(
      answer(200, 'ok', { 'x-handoff-draining': '1', 'x-handoff-verified': '1' }),
    );
    expect(await runCheck(check(url), deps)).toMatchObject({ ok: true, code: 'ok' });
  });

  it('reports the release a service names, without expecting one', async () => {
    const url = await serve(answer(200, 'ok', { 'x-release': 'v2' }));
    expect(await runCheck(check(url), deps)).toMatchObject({ ok: true, release: 'v2' });
  });
});

describe('the http check with expect_release', () => {
  const expecting = (url: string) => check(url, { expectRelease: true });
  const v4 = { ...deps, release: 'v4' };

  it('passes when x-release is the release that should be live', async () => {
    const url = await serve(answer(200, 'ok', { 'x-release': 'v4' }));
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      ok: true,
      code: 'ok',
      release: 'v4',
    });
  });

  it('compares a release id of 128 characters whole', async () => {
    const long = `2026-11-30T18-44-42Z-main-${'6a7e8d'.repeat(17)}`.slice(0, 128);
    const other = `${long.slice(0, 127)}x`;
    const url = await serve(answer(200, 'ok', { 'x-release': long }));
    expect(await runCheck(expecting(url), { ...deps, release: long })).toMatchObject({
      ok: true,
      release: long,
    });
    expect(await runCheck(expecting(url), { ...deps, release: other })).toMatchObject({
      ok: false,
      code: 'release-mismatch',
    });
  });

  it('fails with release-mismatch when another release answers', async () => {
    const url = await serve(answer(200, 'ok', { 'x-release': 'v2' }));
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      ok: false,
      code: 'release-mismatch',
      release: 'v2',
      detail: 'answers v2, expected v4',
    });
  });

  it('does not excuse a draining 503 from another release', async () => {
    const url = await serve(
      answer(503, 'draining', { 'x-handoff-draining': '1', 'x-release': 'v2' }),
    );
    const result = await runCheck(expecting(url), v4);
    expect(result).toMatchObject({ ok: false, code: 'release-mismatch' });
    expect(result.draining).toBeUndefined();
  });

  it('keeps a draining 503 from the right release a drain', async () => {
    const url = await serve(
      answer(503, 'draining', { 'x-handoff-draining': '1', 'x-release': 'v4' }),
    );
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      code: 'status-503',
      draining: true,
    });
  });

  it('fails without the header', async () => {
    const url = await serve(answer(200, 'ok'));
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      code: 'release-mismatch',
      detail: 'answers without an x-release header, expected v4',
    });
  });

  it('calls an empty header a mismatch', async () => {
    const url = await serve(rawAnswer(200, [['x-release', '']]));
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      code: 'release-mismatch',
      detail: 'answers an empty x-release header, expected v4',
    });
  });

  it('calls several headers a mismatch, even when one is right', async () => {
    const url = await serve(
      rawAnswer(200, [
        ['x-release', 'v4'],
        ['x-release', 'v2'],
      ]),
    );
    expect(await runCheck(expecting(url), v4)).toMatchObject({
      ok: false,
      code: 'release-mismatch',
      detail: 'answers several x-release headers (v4, v2), expected v4',
    });
  });

  it('fails when no release is live to expect', async () => {
    const url = await serve(answer(200, 'ok', { 'x-release': 'v4' }));
    expect(await runCheck(expecting(url), deps)).toMatchObject({
      code: 'release-mismatch',
      detail: 'no release is live on this host to expect',
    });
  });

  it('returning to an older release (releaseOptional), passes an answer that names none', async () => {
    const url = await serve(answer(200, 'ok'));
    expect(await runCheck(expecting(url), { ...v4, releaseOptional: true })).toMatchObject({
      ok: true,
      code: 'ok',
    });
  });

  it('returning to an older release, still fails one that names another release', async () => {
    const url = await serve(answer(200, 'ok', { 'x-release': 'v2' }));
    expect(await runCheck(expecting(url), { ...v4, releaseOptional: true })).toMatchObject({
      ok: false,
      code: 'release-mismatch',
      detail: 'answers v2, expected v4',
    });
  });

  it('reports a failing status before the release', async () => {
    const url = await serve(answer(500, 'boom', { 'x-release': 'v2' }));
    expect(await runCheck(expecting(url), v4)).toMatchObject({ code: 'status-500' });
  });
});
