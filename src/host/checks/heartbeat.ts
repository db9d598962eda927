import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CheckConfig } from '../../config/types.js';
import { isMissing, marksDir } from '../layout.js';
import type { CheckDeps, CheckResult } from './result.js';

type HeartbeatCheck = Extract<CheckConfig, { kind: 'heartbeat' }>;

/**
 * Workers without a port prove they are alive by touching one mark file per
 * worker slot. At least `expected` marks must be younger than `max_age`.
 * Dot files and `*.tmp` are skipped: temp files of an atomic write in progress,
 * or left behind by a worker killed between write and rename.
 */
export async function heartbeatCheck(check: HeartbeatCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  const dir = marksDir(deps.state, check.dir);
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => !n.startsWith('.') && !n.endsWith('.tmp'));
  } catch (error) {
    const code = isMissing(error) ? 'no-marks' : 'error';
    return {
      ok: false,
      code,
      latency_ms: 0,
      detail: `cannot read ${dir}: ${(error as NodeJS.ErrnoException).code}`,
    };
  }
  const now = deps.clock.now();
  let total = 0;
  let fresh = 0;
  for (const name of names) {
    const s = await stat(path.join(dir, name)).catch(() => undefined);
    if (!s?.isFile()) continue; // removed meanwhile, or not a mark
    total += 1;
    if (now - s.mtimeMs <= check.maxAge) fresh += 1;
  }
  const detail = `${fresh} fresh of ${total} marks, expected ${check.expected} within ${check.maxAge} ms`;
  const latency_ms = Math.max(0, deps.clock.now() - started);
  if (fresh >= check.expected) return { ok: true, code: 'ok', latency_ms, detail };
  return {
    ok: false,
    code: total < check.expected ? 'too-few-marks' : 'stale-marks',
    latency_ms,
    detail,
  };
}
