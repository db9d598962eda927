import { readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * Where things live on a host. Every path the agent, the watchdog and the
 * runtimes touch is spelled here once, so the docs (docs/host.md) and the code
 * cannot drift apart.
 */

/** `host.root/releases/<id>/` */
export function releaseDir(root: string, release: string): string {
  return path.join(root, 'releases', release);
}

/** `host.root/current`, a symlink to `releases/<id>` */
export function currentLink(root: string): string {
  return path.join(root, 'current');
}

export function composeFilePath(root: string, release: string): string {
  return path.join(releaseDir(root, release), 'compose.yml');
}

export function envFilePath(root: string, release: string): string {
  return path.join(releaseDir(root, release), '.env');
}

/** output of the command runtime's start/stop/status commands, one file per service and step */
export function commandLogPath(root: string, service: string, step: string): string {
  return path.join(root, 'logs', `${service}.${step}.log`);
}

export function auditLogPath(root: string): string {
  return path.join(root, 'audit.jsonl');
}

/** the drain marker: while this file exists, health endpoints answer 503 */
export function drainMarkerPath(state: string): string {
  return path.join(state, 'draining');
}

/** a heartbeat check's marks directory: relative to host.state, or absolute */
export function marksDir(state: string, dir: string): string {
  return path.resolve(state, dir);
}

/** beside the lock, written by whoever holds it */
export function lockHolderPath(lock: string): string {
  return `${lock}.holder.json`;
}

/** The release `current` points at, or undefined before the first switch. */
export async function readCurrentRelease(root: string): Promise<string | undefined> {
  try {
    const target = await readlink(currentLink(root));
    return path.basename(target);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
