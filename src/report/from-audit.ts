import { UsageError } from '../errors.js';
import { STEP_NAMES } from '../rollout/types.js';
import type { Report, ReportHost, ReportStep } from './model.js';
import { auditShape, type AuditLine } from './shapes.js';
import { inferWaves } from './waves.js';

/** The handshake's steps as the audit records them; a watchdog's actions are not drawn. */
const HANDSHAKE: ReadonlySet<string> = new Set(STEP_NAMES);

interface Timed extends AuditLine {
  readonly host: string;
  readonly at: number;
}

function timed(entries: readonly unknown[]): Timed[] {
  return entries.flatMap((entry) => {
    const e = auditShape.safeParse(entry);
    if (!e.success || e.data.host === undefined) return [];
    const at = Date.parse(e.data.start ?? e.data.time ?? '');
    return Number.isNaN(at) ? [] : [{ ...e.data, host: e.data.host, at }];
  });
}

/** A host's last run of the release: from its last lock, with the prepare just before it. */
function lastRun(lines: readonly Timed[]): Timed[] {
  const lock = lines.findLastIndex((l) => l.step === 'lock');
  if (lock <= 0) return lines.slice(Math.max(lock, 0));
  const before = lines.slice(0, lock).findLastIndex((l) => l.step === 'lock');
  const prepare = lines.slice(0, lock).findLastIndex((l) => l.step === 'prepare');
  return lines.slice(prepare > before ? prepare : lock);
}

function resultOf(steps: readonly ReportStep[]): string | undefined {
  if (steps.some((s) => s.step === 'rollback')) return 'rolled-back';
  if (steps.some((s) => !s.ok)) return 'failed';
  return steps.some((s) => s.step === 'confirm') ? 'deployed' : undefined;
}

/** Audit lines of every host, for one release (the newest one in them when none is given). */
export function reportFromAudit(
  entries: readonly unknown[],
  o: { readonly name: string; readonly release?: string },
): Report {
  const all = timed(entries).filter((e) => HANDSHAKE.has(e.step));
  if (all.length === 0)
    throw new UsageError(
      `${o.name}: no audit line of a rollout step with its host in it; give 'deploy audit --json' output, or --host NAME with a host's audit.jsonl`,
    );
  const release = o.release ?? all.reduce((a, b) => (b.at >= a.at ? b : a)).release;
  const ofRelease = all.filter((e) => e.release === release).sort((a, b) => a.at - b.at);
  if (ofRelease.length === 0)
    throw new UsageError(`${o.name}: no audit line of release ${release}; see 'deploy releases'`);
  const byHost = Map.groupBy(ofRelease, (e) => e.host);
  const runs = [...byHost].map(([host, lines]) => ({ host, lines: lastRun(lines) }));
  const t0 = Math.min(...runs.flatMap((r) => r.lines.map((l) => l.at)));
  const hosts = runs.map(({ host, lines }): ReportHost => {
    const steps = lines.map((l): ReportStep => ({
      step: l.step,
      offsetMs: l.at - t0,
      durationMs: l.duration_ms,
      ok: l.result === 'ok',
      ...(l.detail === undefined ? {} : { detail: l.detail }),
    }));
    const result = resultOf(steps);
    const failed = steps.find((s) => !s.ok);
    return {
      host,
      steps,
      ...(result === undefined ? {} : { result }),
      ...(failed?.detail === undefined ? {} : { error: failed.detail }),
    };
  });
  const failed = hosts.filter((h) => h.result !== 'deployed');
  return {
    release,
    ok: failed.length === 0,
    elapsedMs: Math.max(...hosts.flatMap((h) => h.steps.map((s) => s.offsetMs + s.durationMs))),
    waves: inferWaves(hosts),
    hosts,
    notReached: [],
    judgements: [],
    errors: [],
    source: 'the audit',
    started: new Date(t0).toISOString(),
  };
}
