import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { hostFixture } from '../../support/host-fixture.js';
import { exited, repoRoot } from '../host/helpers.js';

/**
 * The real `deploy host lock-hold` process, its stdin a pipe this test keeps
 * open, as sshd does while the orchestrator's connection is up: the lines it
 * prints, and its exit.
 */
async function holder(flags: readonly string[]) {
  const host = await hostFixture();
  const config = path.join(host.dir, 'deploy.yml');
  await writeFile(config, host.yaml);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(repoRoot, 'src/cli/main.ts'),
      'host',
      'lock-hold',
      '--config',
      config,
      '--what',
      'rollout',
      ...flags,
    ],
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'ignore'] },
  );
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout }).on('line', (l) =>
    lines.push(JSON.parse(l) as Record<string, unknown>),
  );
  const locked = (): boolean => lines.some((l) => l.type === 'locked');
  return { host, child, lines, locked, exit: exited(child) };
}

describe('a lock-hold session that ends on its own, its stdin still open', () => {
  it('ends its process after the heartbeat silence: the orchestrator hears the holder went', async () => {
    const h = await holder(['--silence-ms', '300']);
    try {
      await expect.poll(h.locked, { timeout: 10_000 }).toBe(true);
      expect(await h.exit).toBe(0);
      expect(h.lines.at(-1)).toMatchObject({
        type: 'result',
        ok: true,
        data: { released: true, reason: 'silence' },
      });
    } finally {
      h.child.kill('SIGKILL');
    }
  }, 20_000);

  it('ends its process once its lock is compromised (taken over while it was frozen)', async () => {
    const h = await holder([]);
    try {
      await expect.poll(h.locked, { timeout: 10_000 }).toBe(true);
      // as a watchdog does with a stale lock: remove it; the holder's next refresh finds it gone
      await rm(`${h.host.config.host.lock}.lock`, { recursive: true, force: true });
      expect(await h.exit).not.toBe(0);
      expect(h.lines).toContainEqual(
        expect.objectContaining({ type: 'event', event: 'lock.compromised' }),
      );
      expect(h.lines.at(-1)).toMatchObject({ type: 'result', ok: false });
    } finally {
      h.child.kill('SIGKILL');
    }
  }, 20_000);
});
