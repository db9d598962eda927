import { composeFilePath, envFilePath } from '../layout.js';

/**
 * `docker compose` command lines, as data. One project per deploy.yml
 * `service`, so a release switch replaces the containers of the same project
 * instead of starting a second copy next to them.
 */

export interface ComposeTarget {
  readonly root: string;
  readonly release: string;
  /** deploy.yml `service` */
  readonly project: string;
}

export function composeBase(t: ComposeTarget): string[] {
  return [
    'docker',
    'compose',
    '-f',
    composeFilePath(t.root, t.release),
    '--env-file',
    envFilePath(t.root, t.release),
    '--project-name',
    t.project,
  ];
}

export function composePull(t: ComposeTarget): string[] {
  return [...composeBase(t), 'pull'];
}

export function composeUp(t: ComposeTarget, service?: string): string[] {
  return [...composeBase(t), 'up', '-d', ...optional(service)];
}

/** docker sends SIGKILL itself after `-t` seconds */
export function composeStop(t: ComposeTarget, stopTimeoutMs: number, service?: string): string[] {
  return [...composeBase(t), 'stop', '-t', seconds(stopTimeoutMs), ...optional(service)];
}

export function composeRestart(t: ComposeTarget, stopTimeoutMs: number, service: string): string[] {
  return [...composeBase(t), 'restart', '-t', seconds(stopTimeoutMs), service];
}

export function composePs(t: ComposeTarget, service?: string): string[] {
  return [...composeBase(t), 'ps', '--format', 'json', ...optional(service)];
}

/** rounded up: a 1500 ms grace must not become 1 s */
function seconds(ms: number): string {
  return String(Math.ceil(ms / 1000));
}

function optional(service: string | undefined): string[] {
  return service === undefined ? [] : [service];
}
