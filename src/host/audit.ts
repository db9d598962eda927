import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { auditLogPath } from './layout.js';

/**
 * `host.root/audit.jsonl`: one line per deploy step, rollback and watchdog
 * action. One `appendFile` per line (O_APPEND) so concurrent writers — a
 * rollout and a watchdog tick — never interleave inside a line.
 */
export async function appendAudit(
  root: string,
  entry: Readonly<Record<string, unknown>>,
): Promise<void> {
  const file = auditLogPath(root);
  await mkdir(path.dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(entry)}\n`, { mode: 0o640 });
}
