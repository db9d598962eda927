import { HAPROXY_NAME, HAPROXY_NAME_RULE } from './config/names.js';
import { ConfigError } from '../../errors.js';

/**
 * Runtime API commands are data: built here, from validated names only, so a
 * name from deploy.yml can never smuggle a second command (`;` or a newline
 * separate commands on the socket).
 */

export type AdminState = 'ready' | 'drain' | 'maint';

/** The loader refuses these names already (config/rules.ts); this is the last line of defence. */
export function checkName(name: string, path: string): string {
  if (!HAPROXY_NAME.test(name)) {
    throw new ConfigError([
      { path, message: `${JSON.stringify(name)} is not an haproxy name (${HAPROXY_NAME_RULE})` },
    ]);
  }
  return name;
}

export function showServersState(backend: string): string {
  return `show servers state ${checkName(backend, 'balancer.backend')}`;
}

/** type 4 = servers only; -1 = every server */
export function showStat(backend: string): string {
  return `show stat ${checkName(backend, 'balancer.backend')} 4 -1`;
}

/** the answering process: its Pid and Uptime_sec tell a reload (reload-watch.ts) */
export function showInfo(): string {
  return 'show info';
}

export function showBackend(): string {
  return 'show backend';
}

export function setServerState(backend: string, server: string, state: AdminState): string {
  return `set server ${checkName(backend, 'balancer.backend')}/${checkName(server, 'hosts[].target')} state ${state}`;
}
