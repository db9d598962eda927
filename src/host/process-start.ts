import { readFileSync } from 'node:fs';

/**
 * When a process started, in clock ticks since boot (`/proc/<pid>/stat`,
 * field 22): with the pid, it names one process for good. A pid alone is
 * reused, and a SIGTERM sent to a recorded pid may reach whatever runs under
 * that number now. undefined where there is no /proc (or no such process).
 */
export function processStartTime(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // the command name (field 2) is in parentheses and may hold spaces and ')'
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 22 is fields[19]
  const start = fields[19];
  return start !== undefined && /^\d+$/.test(start) ? start : undefined;
}
