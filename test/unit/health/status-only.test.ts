import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { createHealth, type Health } from '../../../src/health/index.js';
import { runCheck } from '../../../src/host/checks/run.js';
import { get, listen, tempDir, waitFor } from './support.js';

/** GET with headers of our choosing: what a stranger on the network can send */
const ask = (url: string, headers: Record<string, string> = {}) => get(url, undefined, headers);

describe('a statusOnly health endpoint (a public listener)', () => {
  let dir: string;
  let remove: () => Promise<void>;
  let server: http.Server;
  let health: Health;
  let url: string;
  beforeEach(async () => {
    ({ dir, remove } = await tempDir());
    health = createHealth({
      stateDir: dir,
      release: 'v4',
      statusOnly: true,
      autoStart: true,
      drainCacheMs: 0,
      watchdogs: { jobs: 1 },
      checks: [
        {
          name: 'db',
          run: () => Promise.reject(Object.assign(new Error(), { code: 'ER_ACCESS_DENIED_ERROR' })),
          critical: false,
        },
      ],
    });
    await health.round();
    server = http.createServer((req, res) => health.handler(req, res));
    url = await listen(server);
  });
  afterEach(async () => {
    health.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    await remove();
  });
  const check = {
    kind: 'http' as const,
    timeout: 2_000,
    expectStatus: 200,
    expectRelease: true,
  };
  const deps = () => ({ clock: systemClock, state: dir, service: 'api', release: 'v4' });

  it('answers every endpoint with its status alone: no release, check, code or loop name', async () => {
    // the job loop never beats: stale once its 1 ms limit has passed
    await waitFor(async () => (await ask(`${url}/live`)).status === 503);
    const answers = await Promise.all(['/ready', '/live', '/startup'].map((p) => ask(url + p)));
    expect(answers.map((a) => [a.status, a.body.trim()])).toEqual([
      [200, '{"status":"degraded"}'],
      [503, '{"status":"stale"}'],
      [200, '{"status":"started"}'],
    ]);
    expect(answers.map((a) => a.headers['x-release'])).toEqual([undefined, undefined, undefined]);
  });

  it("gives a stranger's x-handoff-verify the drain, not the real readiness, whatever token it guesses", async () => {
    await writeFile(path.join(dir, 'draining'), 'rollout');
    const guesses: Record<string, string>[] = [
      { 'x-handoff-verify': '1' },
      { 'x-handoff-verify': '1', 'x-handoff-token': 'f'.repeat(64) },
    ];
    for (const headers of guesses) {
      const a = await ask(`${url}/ready`, headers);
      expect([a.status, a.body.trim()]).toEqual([503, '{"status":"draining"}']);
      expect(a.headers['x-handoff-verified']).toBeUndefined();
    }
  });

  it("gives handoff's own check, with the token from host.state, the real readiness and the release", async () => {
    await writeFile(path.join(dir, 'draining'), 'rollout');
    const result = await runCheck({ ...check, url: `${url}/ready` }, deps());
    expect(result).toMatchObject({ ok: true, release: 'v4', detail: 'HTTP 200 (real readiness)' });
    const token = (await readFile(path.join(dir, 'verify-token'), 'utf8')).trim();
    const a = await ask(`${url}/ready`, { 'x-handoff-verify': '1', 'x-handoff-token': token });
    expect(JSON.parse(a.body)).toMatchObject({
      status: 'degraded',
      checks: [{ name: 'db', code: 'ER_ACCESS_DENIED_ERROR' }],
    });
  });
});
