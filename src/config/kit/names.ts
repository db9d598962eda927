/**
 * The shapes of the values that end up in a path, a cron line, an argv or a
 * runtime API command on a host. Plain patterns, no zod: the schema (fields.ts)
 * checks them on load, and the sealed host config (sealed-check.ts), which a
 * tick reads without zod, checks them again.
 */

/** deploy.yml's `service`: names the lock, state and release paths and the cron file */
export const SERVICE_NAME = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const SERVICE_NAME_RULE =
  'must be 1–63 characters of a-z, 0-9 and -, starting with a letter or digit';

export const HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
export const HOST_NAME_RULE =
  'must be 1–63 characters of letters, digits, ., _ and -, without spaces';

/**
 * `ssh.user`, which is also the user field of the watchdog's cron line: the
 * portable POSIX user name, so neither a space nor a newline can turn it into
 * a second field or a second (root) cron line.
 */
export const USER_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}$/;
export const USER_NAME_RULE =
  'must be a user name: up to 32 letters, digits, _, . and -, not starting with a digit, . or -';

/** A path on the host: absolute, and no whitespace or control character. */
// spelled as ranges, not \p{Cc}: editors read the JSON Schema's pattern without the u flag
// eslint-disable-next-line no-control-regex
export const HOST_PATH = /^\/[^\s\u0000-\u001f\u007f]*$/;
export const HOST_PATH_RULE = 'must be an absolute path (starting with /), without spaces';

/** a heartbeat check's marks directory: relative to host.state or absolute, without spaces */
// eslint-disable-next-line no-control-regex
export const MARKS_DIR = /^[^\s\u0000-\u001f\u007f]+$/;
export const MARKS_DIR_RULE =
  'must be a directory (relative to host.state or absolute), without spaces';

/** A variable of the release's `.env`: a name `sh` (`set -a; . .env`) and compose both accept. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
export const ENV_NAME_RULE =
  'must be a variable name: letters, digits and _, not starting with a digit';

/** an etcd client URL in `lease.endpoints` or HANDOFF_ETCD_ENDPOINTS: a scheme and host:port, no path */
export const ETCD_ENDPOINT = /^https?:\/\/[^\s/?#]+\/?$/;
export const ETCD_ENDPOINT_RULE =
  'must be an etcd client URL like https://etcd-1:2379 (http or https, no path)';

/** `deploy -d NAME`: deploy.NAME.yml beside deploy.yml (destination.ts) */
export const DESTINATION_NAME = /^[a-z0-9][a-z0-9-]{0,29}$/;

/**
 * The name a deployment's host paths, host config, cron entry, lease and
 * compose project carry: the service, and with a destination the service
 * and the destination, so two destinations on one host never share them.
 */
export function deploymentName(service: string, destination?: string): string {
  return destination ? `${service}-${destination}` : service;
}
