import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { maskUrlPasswords, secretMask } from '../safe-text.js';
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
  // a watchdog's error may quote a command that printed a secret (host/runtime/common.ts),
  // or a check's URL with its password
  const line = maskUrlPasswords(JSON.stringify(secretMask.maskDeep(entry)));
  await appendFile(file, `${line}\n`, { mode: 0o640 });
}
