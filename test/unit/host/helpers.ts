import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { scratchDir } from '../../support/scratch.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** A fresh temp directory, removed by the returned cleanup. */
export async function tempDir(
  prefix = 'handoff-host-',
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await scratchDir(prefix);
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Run a TypeScript fixture in its own node process, through tsx. */
export function spawnFixture(name: string, args: readonly string[]): ChildProcess {
  const script = path.join(repoRoot, 'test/unit/host/fixtures', name);
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
}

/** The first line a child prints, parsed as JSON. */
export function firstLine(child: ChildProcess): Promise<Record<string, unknown>> {
  if (!child.stdout) throw new Error('child has no stdout');
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolve, reject) => {
    lines.once('line', (line) => resolve(JSON.parse(line) as Record<string, unknown>));
    child.once('exit', (code) =>
      reject(new Error(`child exited (${code}) before printing a line`)),
    );
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** Poll a condition until it holds or the deadline passes; no blind sleeps. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  { within = 5_000, every = 25 }: { within?: number; every?: number } = {},
): Promise<T> {
  const deadline = Date.now() + within;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${within} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Alive and not a zombie (an unreaped dead child still answers kill 0). */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
