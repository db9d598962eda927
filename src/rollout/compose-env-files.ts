import path from 'node:path';
import { parse } from 'yaml';

/**
 * The `env_file:` entries of a compose file that live beside it: compose
 * reads them relative to the compose file's directory, which on a host is
 * `releases/<id>/`, so each must be shipped with the release or `up` fails
 * there. Returned as `{ name, local }`; an absolute path is the host's own
 * file and stays out. A name that cannot sit beside compose.yml (a
 * subdirectory, `..`, handoff's own `.env` and `compose.yml`) is a problem,
 * returned as text for the caller's config error.
 */
export function composeEnvFiles(
  composeFile: string,
  text: string,
): { files: { name: string; local: string; required: boolean }[]; problems: string[] } {
  const doc: unknown = parseOrNull(text);
  const services = record(record(doc).services);
  const files = new Map<string, { local: string; required: boolean }>();
  const problems: string[] = [];
  for (const [service, body] of Object.entries(services)) {
    for (const entry of list(record(body).env_file)) {
      const given = typeof entry === 'string' ? entry : record(entry).path;
      if (typeof given !== 'string' || path.posix.isAbsolute(given)) continue;
      const name = path.posix.normalize(given);
      const why = unshippable(name);
      if (why) problems.push(`services.${service}.env_file ${JSON.stringify(given)}: ${why}`);
      else {
        // compose skips a missing file marked `required: false`; so does the shipment
        const required = files.get(name)?.required === true || record(entry).required !== false;
        files.set(name, { local: path.join(path.dirname(composeFile), name), required });
      }
    }
  }
  return { files: [...files].map(([name, f]) => ({ name, ...f })), problems };
}

const PLAIN = /^[A-Za-z0-9._-]{1,128}$/;

function unshippable(name: string): string | undefined {
  if (name === '.env' || name === 'compose.yml')
    return `handoff writes ${name} itself; name the file otherwise`;
  if (!PLAIN.test(name) || name === '.' || name === '..')
    return 'must be a file beside the compose file (letters, digits, . _ -), which handoff ships with the release';
  return undefined;
}

function parseOrNull(text: string): unknown {
  try {
    return parse(text);
  } catch {
    // compose itself reports a broken file on the host, as it did before
    return null;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function list(value: unknown): unknown[] {
  if (Array.isArray(value)) return value as unknown[];
  return value === undefined ? [] : [value];
}
