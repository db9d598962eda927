import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { labFiles } from './layout.js';

/** What a running lab leaves on disk, so `down` can clean up after a crashed run. */
export interface LabState {
  readonly startedAt: string;
  /** the process that brought the lab up */
  readonly ownerPid: number;
  /** every host's sshd, lb-b's of a pair too (`balancer`: no service runs there) */
  hosts: { name: string; pid: number; mountNamespace: string; balancer?: true }[];
  haproxyPid?: number;
  /** a pair's second HAProxy, and every process a reload started */
  haproxyPids?: number[];
  /** balancer nginx: its master (its workers are in its process group) */
  nginxPid?: number;
  /** compose mode: each host's podman system service (inside its namespaces) */
  compose?: boolean;
}

export function readState(workDir: string): LabState | undefined {
  try {
    return JSON.parse(readFileSync(labFiles(workDir).state, 'utf8')) as LabState;
  } catch {
    return undefined;
  }
}

/** Written after every process the lab starts, synchronously, so a crash loses nothing. */
export function writeState(workDir: string, state: LabState): void {
  const file = labFiles(workDir).state;
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}

export function clearState(workDir: string): void {
  rmSync(labFiles(workDir).state, { force: true });
}
