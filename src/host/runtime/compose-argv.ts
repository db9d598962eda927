import path from 'node:path';
import { composeFilePath, envFilePath } from '../layout.js';

/**
 * Compose command lines, as data. One project per deploy.yml `service`, so a
 * release switch replaces the containers of the same project instead of
 * starting a second copy next to them. `command` is the compose command this
 * host answers to (`docker compose`, `docker-compose`, `podman-compose`;
 * compose-command.ts finds it).
 */

export interface ComposeTarget {
  readonly command: readonly string[];
  readonly root: string;
  readonly release: string;
  /** deploy.yml `service` */
  readonly project: string;
}

export function composeBase(t: ComposeTarget): string[] {
  return [
    ...t.command,
    '-f',
    composeFilePath(t.root, t.release),
    '--env-file',
    envFilePath(t.root, t.release),
    '--project-name',
    t.project,
  ];
}

/** every service's logs, without colour codes: they are relayed as lines (deploy logs) */
export function composeLogs(
  t: ComposeTarget,
  o: { follow: boolean; since?: string; tail: number },
): string[] {
  return [
    ...composeBase(t),
    'logs',
    '--no-color',
    '--tail',
    String(o.tail),
    ...(o.follow ? ['--follow'] : []),
    ...(o.since === undefined ? [] : ['--since', o.since]),
  ];
}

export function composeVersion(command: readonly string[]): string[] {
  return [...command, 'version'];
}

export function composePull(t: ComposeTarget): string[] {
  return [...composeBase(t), 'pull'];
}

/** the compose file as compose resolves it (variables filled in): where the image names are read */
export function composeConfig(t: ComposeTarget): string[] {
  return [...composeBase(t), 'config'];
}

export function composeUp(t: ComposeTarget, service?: string): string[] {
  return [...composeBase(t), 'up', '-d', ...optional(service)];
}

/** compose sends SIGKILL itself after `-t` seconds */
export function composeStop(t: ComposeTarget, stopTimeoutMs: number, service?: string): string[] {
  return [...composeBase(t), 'stop', '-t', seconds(stopTimeoutMs), ...optional(service)];
}

export function composeRestart(t: ComposeTarget, stopTimeoutMs: number, service: string): string[] {
  return [...composeBase(t), 'restart', '-t', seconds(stopTimeoutMs), service];
}

/** `--format json` where the command has it; docker-compose 1.x prints its table instead */
export function composePs(t: ComposeTarget, service?: string): string[] {
  const format = isComposeV1(t.command) ? [] : ['--format', 'json'];
  return [...composeBase(t), 'ps', ...format, ...optional(service)];
}

/** The engine beside the compose command, which answers whether an image is on this host. */
export function imageInspect(command: readonly string[], image: string): string[] {
  const tool = path.basename(command[0] ?? '');
  const engine = tool.startsWith('podman') ? 'podman' : 'docker';
  return [engine, 'image', 'inspect', '--format', '{{.Id}}', image];
}

/** docker-compose 1.x: no `ps --format json` (podman-compose hands the flag to `podman ps`) */
export function isComposeV1(command: readonly string[]): boolean {
  return path.basename(command[0] ?? '') === 'docker-compose';
}

/** rounded up: a 1500 ms grace must not become 1 s */
function seconds(ms: number): string {
  return String(Math.ceil(ms / 1000));
}

function optional(service: string | undefined): string[] {
  return service === undefined ? [] : [service];
}
