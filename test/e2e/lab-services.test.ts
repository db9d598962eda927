import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { healthBundlePath } from '../../scripts/build.js';
import { servicesDir } from '../../scripts/lab/services.js';
import { get, waitFor } from '../unit/health/support.js';

/**
 * The lab's demo services as a release ships them (app.mjs, worker.mjs and
 * health.mjs side by side), run as plain processes: the behaviours the lab's
 * e2e files rely on, checked without a lab.
 */
let release: string;
let state: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'handoff-lab-services-'));
  release = path.join(root, 'r1');
  state = path.join(root, 'state');
  await mkdir(release);
  await mkdir(state);
  for (const f of ['app.mjs', 'worker.mjs'])
    await copyFile(path.join(servicesDir, f), path.join(release, f));
  await copyFile(healthBundlePath, path.join(release, 'health.mjs'));
});
afterEach(async () => {
  for (const c of children.splice(0))
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await once(c, 'exit');
    }
  await rm(path.dirname(release), { recursive: true, force: true });
});

let port = 18_400 + Math.floor(Math.random() * 500);
async function run(service: 'app' | 'worker', env: Record<string, string> = {}) {
  port += 1;
  const child = spawn(process.execPath, [`${service}.mjs`], {
    cwd: release,
    env: {
      ...process.env,
      RELEASE: 'r1',
      STATE_DIR: state,
      PORT: String(port),
      HEARTBEAT_MS: '50',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  await once(child.stdout, 'data');
  return { child, url: `http://127.0.0.1:${port}` };
}
const verify = (url: string) =>
  new Promise<{ status: number; headers: Record<string, unknown> }>((resolve, reject) => {
    void import('node:http').then((http) =>
      http
        .get(`${url}/health`, { headers: { 'x-handoff-verify': '1' } }, (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, headers: res.headers });
        })
        .on('error', reject),
    );
  });

describe("the lab's demo services", () => {
  it('app: a bad release answers 503 to verify while drained; a good one 200 verified', async () => {
    await writeFile(path.join(state, 'draining'), 'rollout');
    const good = await run('app');
    await waitFor(async () => (await verify(good.url)).status === 200);
    expect((await verify(good.url)).headers).toMatchObject({
      'x-handoff-verified': '1',
      'x-handoff-draining': '1',
      'x-release': 'r1',
    });
    expect((await get(`${good.url}/health`)).status).toBe(503);
    good.child.kill('SIGKILL');
    await writeFile(path.join(release, 'BAD_HEALTH'), '');
    const bad = await run('app');
    const answer = await verify(bad.url);
    expect(answer.status).toBe(503);
    expect(answer.headers['x-handoff-verified']).toBe('1');
  });

  it('app: CLAIM_RELEASE makes it say another release in x-release', async () => {
    await writeFile(path.join(release, 'CLAIM_RELEASE'), 'r0\n');
    const app = await run('app');
    expect((await get(`${app.url}/health`)).headers['x-release']).toBe('r0');
  });

  it('app: SIGTERM answers draining and exits 0', async () => {
    const app = await run('app');
    await waitFor(async () => (await get(`${app.url}/health`)).status === 200);
    const exited = once(app.child, 'exit');
    app.child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
  });

  it('worker: two slots keep worker-1 and worker-2 fresh and write expected', async () => {
    await run('worker');
    const marks = path.join(state, 'marks');
    await waitFor(
      async () =>
        (await readdir(marks).catch(() => [])).filter((n) => !n.startsWith('.')).length === 3,
    );
    expect((await readdir(marks)).filter((n) => !n.startsWith('.')).sort()).toEqual([
      'expected',
      'worker-1',
      'worker-2',
    ]);
    expect(await readFile(path.join(marks, 'expected'), 'utf8')).toBe('2\n');
  });
});
