import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { AuditEntry } from '../protocol/results.js';
import { auditLogPath } from './layout.js';
import type { AuditRead } from '../protocol/results.js';

export type { AuditRead };

/** What `deploy host audit-read` sends at most: the newest lines that fit. */
export const AUDIT_READ_MAX_BYTES = 1024 * 1024;

/**
 * `host.root/audit.jsonl`, filtered here on the host (`since`, epoch ms) and
 * bounded, so a host with years of audit sends the operator what was asked
 * and never more than `maxBytes`. Streamed line by line: the file may be
 * larger than the agent should hold in memory.
 */
export async function readAudit(
  root: string,
  since: number | undefined,
  maxBytes = AUDIT_READ_MAX_BYTES,
): Promise<AuditRead> {
  const kept: { entry: AuditEntry; bytes: number }[] = [];
  let bytes = 0;
  let truncated = false;
  let skipped = 0;
  const stream = createReadStream(auditLogPath(root), { encoding: 'utf8' });
  try {
    for await (const line of createInterface({ input: stream, crlfDelay: Infinity })) {
      if (!line.trim()) continue;
      const entry = auditEntry(line);
      if (!entry) {
        skipped += 1;
        continue;
      }
      if (since !== undefined && Date.parse(entry.start) < since) continue;
      kept.push({ entry, bytes: line.length + 1 });
      bytes += line.length + 1;
      while (bytes > maxBytes && kept.length > 0) {
        bytes -= kept.shift()?.bytes ?? 0;
        truncated = true;
      }
    }
  } catch (error) {
    // no audit.jsonl yet: nothing has been deployed or restarted here
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { entries: kept.map((k) => k.entry), truncated, skipped };
}

function auditEntry(line: string): AuditEntry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const e = value as Record<string, unknown>;
  const text = (key: string) => typeof e[key] === 'string';
  if (!['release', 'step', 'start', 'result', 'who'].every(text)) return undefined;
  if (typeof e.duration_ms !== 'number' || Number.isNaN(Date.parse(e.start as string)))
    return undefined;
  return value as AuditEntry;
}
