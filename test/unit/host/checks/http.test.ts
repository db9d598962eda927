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
const check = (url: string, more: { timeout?: number; expectStatus?: number } = {}) => ({
  kind: 'http' as const,
  url,
  timeout: more.timeout ?? 2_000,
  expectStatus: more.expectStatus ?? 200,
});

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
