import path from 'node:path';
import type { ConfigProblem } from '../errors.js';
import type { KeyPath, ParsedDocument } from './document.js';
import { DESTINATION_NAME, deploymentName } from './kit/names.js';

/**
 * Destinations, as Kamal has them: `deploy -d staging …` reads deploy.yml
 * with deploy.staging.yml merged over it. Maps are merged key by key, a list
 * or a scalar in the destination file replaces deploy.yml's whole (so
 * `hosts:` there is the destination's fleet, not an addition), and a key set
 * to null there removes deploy.yml's. The merged `service` becomes
 * `<service>-<destination>`, which names the host paths, the host config,
 * the cron entry, the lease and the compose project: a staging rollout never
 * takes or reads production's lock, lease, state or audit, even on a shared
 * host.
 */

/** `deploy.yml` + `staging` → `deploy.staging.yml`, beside it. */
export function destinationFile(file: string, name: string): string {
  const ext = path.extname(file);
  const stem = ext ? file.slice(0, -ext.length) : file;
  return `${stem}.${name}${ext || '.yml'}`;
}

/** One line for a bad `-d`, or undefined. */
export function destinationProblem(name: string): string | undefined {
  return DESTINATION_NAME.test(name)
    ? undefined
    : `-d ${JSON.stringify(name.slice(0, 40))}: a destination is 1–30 characters of a-z, 0-9 and -, starting with a letter or digit (deploy.NAME.yml)`;
}

type Data = Record<string, unknown>;
const isMap = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `overlay` over `base`: maps merged, anything else replaced, null removes. */
export function mergeOver(base: unknown, overlay: unknown): unknown {
  if (!isMap(base) || !isMap(overlay)) return overlay;
  const merged: Data = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    if (value === null) delete merged[key];
    else merged[key] = mergeOver(base[key], value);
  }
  return merged;
}

/** True when the value at `keys` comes from the destination file rather than deploy.yml. */
function fromOverlay(overlay: unknown, keys: KeyPath): boolean {
  let node = overlay;
  for (const key of keys) {
    if (!isMap(node)) return node !== undefined;
    if (!(String(key) in node)) return false;
    node = node[String(key)];
  }
  return node !== undefined;
}

/**
 * deploy.yml and the destination file as one document: the merged data, and
 * each key located in the file its value came from, so `deploy check -d
 * staging` points into deploy.staging.yml for what that file set. Offsets in
 * the destination file come after deploy.yml's, to list problems file by file.
 */
export function mergedDocument(
  base: ParsedDocument,
  overlay: ParsedDocument,
  baseLength: number,
  name: string,
): ParsedDocument {
  const problems: ConfigProblem[] = [...base.syntaxProblems, ...overlay.syntaxProblems];
  const over = overlay.data ?? {};
  if (problems.length === 0 && !isMap(over))
    problems.push({
      path: '',
      message: `the destination file holds ${Array.isArray(over) ? 'a list' : `a ${typeof over}`}, not a mapping of deploy.yml keys to set for ${name}`,
      location: overlay.locate([])?.location,
    });
  const merged = mergeOver(base.data, over);
  if (isMap(merged) && typeof merged.service === 'string')
    merged.service = deploymentName(merged.service, name);
  return {
    data: problems.length === 0 ? merged : undefined,
    syntaxProblems: problems,
    locate(keys, key) {
      const full = key === undefined ? keys : [...keys, key];
      if (!fromOverlay(overlay.data, full)) return base.locate(keys, key);
      const where = overlay.locate(keys, key);
      return where && { ...where, offset: baseLength + where.offset };
    },
  };
}
