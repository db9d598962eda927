import { execFile } from 'node:child_process';
import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireHostLock, readLockStatus } from '../../../src/host/lock.js';
import { eventually, repoRoot, tempDir } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
let config: string;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  config = path.join(dir, 'deploy.yml');
  await writeFile(
    config,
    `service: api
ssh: { user: deploy, known_hosts: ${dir}/known_hosts }
hosts:
  - { name: web-1, address: 127.0.0.1, target: web-1 }
  - { name: web-2, address: 127.0.0.2, target: web-2 }
balancer: { kind: static, interval: 5s, timeout: 2s, unhealthy_threshold: 2, healthy_threshold: 2 }
host: { root: ${dir}/root, lock: ${dir}/lock/api, state: ${dir}/state, agent: ${dir}/agent }
runtime: { kind: command }
services:
  - { name: web, check: { tcp: "127.0.0.1:8080", timeout: 1s }, start: "true", stop: "true", status: "true" }
`,
  );
});
afterEach(() => cleanup());

function deploy(
  args: string[],
  onPid?: (pid: number) => void,
): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', 'tsx', path.join(repoRoot, 'src/cli/main.ts'), ...args],
      { cwd: repoRoot },
      (error, _stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
    if (child.pid !== undefined) onPid?.(child.pid);
  });
}

describe('deploy lock exec', () => {
  it('exits with the exit code of the command it ran', { timeout: 30_000 }, async () => {
    expect(await deploy(['lock', 'exec', '-c', config, '--', 'sh', '-c', 'exit 7'])).toEqual({
      code: 7,
      stderr: '',
    });
  });

  it('exits 3 naming the holder when the host lock is held', { timeout: 30_000 }, async () => {
    const held = await acquireHostLock(path.join(dir, 'lock', 'api'), {
      what: 'deploy rollout',
      message: 'release r42',
    });
    try {
      const { code, stderr } = await deploy(['lock', 'exec', '-c', config, '--', 'true']);
      expect(code).toBe(3);
      expect(stderr).toContain(`is held by deploy rollout (pid ${process.pid}`);
      expect(stderr).toContain(`since ${held.holder.since}: release r42`);
    } finally {
      await held.release();
    }
  });

  it(
    'passes SIGTERM on to the command and keeps the lock until the command has exited',
    { timeout: 30_000 },
    async () => {
      const started = path.join(dir, 'started');
      const script = `trap 'sleep 1; exit 9' TERM; touch "$0"; while :; do sleep 0.05; done`;
      let pid = 0;
      const run = deploy(
        ['lock', 'exec', '-c', config, '--', 'sh', '-c', script, started],
        (p) => (pid = p),
      );
      await eventually(() => stat(started).catch(() => undefined), { within: 20_000 });
      process.kill(pid, 'SIGTERM');
      // the command is still finishing its trap: the lock must still be held
      expect((await readLockStatus(path.join(dir, 'lock', 'api'))).locked).toBe(true);
      expect((await run).code).toBe(9);
      expect(await readLockStatus(path.join(dir, 'lock', 'api'))).toEqual({ locked: false });
    },
  );
});
