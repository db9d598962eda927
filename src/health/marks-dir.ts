import path from 'node:path';

/** the runtime exports the resolved marks directory of the service's `heartbeat` check */
export const MARKS_DIR_VAR = 'HANDOFF_MARKS_DIR';

export interface MarksDirOptions {
  /** the marks directory itself; wins over everything */
  readonly dir?: string;
  /** host.state; default HANDOFF_STATE. The marks go in `<stateDir>/marks` */
  readonly stateDir?: string;
}

/**
 * Where a worker writes its marks: `dir`, else HANDOFF_MARKS_DIR, else
 * `<stateDir or HANDOFF_STATE>/marks`. The runtime exports HANDOFF_MARKS_DIR
 * from the check's own `dir` in deploy.yml, so the workers and the host's
 * `heartbeat` check agree without the directory being typed twice.
 */
export function resolveMarksDir(
  options: MarksDirOptions,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string {
  const given = options.dir ?? nonEmpty(env[MARKS_DIR_VAR]);
  if (given !== undefined) return path.resolve(given);
  const stateDir = options.stateDir ?? nonEmpty(env.HANDOFF_STATE);
  if (stateDir === undefined)
    throw new RangeError(
      `no marks directory: pass dir or stateDir, or run under handoff, which exports ${MARKS_DIR_VAR} and HANDOFF_STATE`,
    );
  return path.join(stateDir, 'marks');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
