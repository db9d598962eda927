import type { ServiceConfig } from '../../config/types.js';
import { MARKS_DIR_VAR } from '../../health/marks-dir.js';
import { marksDir } from '../layout.js';

/**
 * The marks directory of a service's `heartbeat` check, resolved against
 * host.state, handed to the service as HANDOFF_MARKS_DIR: the workers write
 * where the check reads, and `dir` is typed once, in deploy.yml.
 */
export function serviceMarksEnv(state: string, service: ServiceConfig): Record<string, string> {
  const { check } = service;
  return check.kind === 'heartbeat' ? { [MARKS_DIR_VAR]: marksDir(state, check.dir) } : {};
}

/**
 * For the release's `.env`, which all of compose's services share:
 * `HANDOFF_MARKS_DIR_<SERVICE>` (upper case, `-` as `_`) per service with a
 * heartbeat check, and plain HANDOFF_MARKS_DIR when there is exactly one.
 */
export function releaseMarksEnv(
  state: string,
  services: readonly ServiceConfig[],
): Record<string, string> {
  const each = services.flatMap((s) =>
    Object.values(serviceMarksEnv(state, s)).map((dir) => [s.name, dir] as const),
  );
  const vars: Record<string, string> = Object.fromEntries(
    each.map(([name, dir]) => [`${MARKS_DIR_VAR}_${name.toUpperCase().replaceAll('-', '_')}`, dir]),
  );
  const [only] = each;
  return each.length === 1 && only ? { [MARKS_DIR_VAR]: only[1], ...vars } : vars;
}
