import { maskUrlPasswords } from '../../safe-text.js';
import { formatMs } from '../../timing/duration.js';
import type { HostOutcome, RolloutResult } from '../../rollout/types.js';
import { hostReceiptLine, receiptLine } from '../../evidence/receipt.js';
import { reportFromResult } from '../../report/from-result.js';
import { rolloutGantt } from '../../report/gantt.js';

/** A table cell: one line, and a `|` that does not end the cell. */
const cell = (text: string): string => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|');

/** What runs on the host after the rollout, as far as the outcome tells. */
function releaseAfter(o: HostOutcome, release: string, before: string | undefined): string {
  if (o.result === 'deployed') return release;
  const switched = o.steps.some((s) => s.step === 'switch');
  if (o.result === 'rolled-back' || !switched) return before ?? 'unknown';
  return `${release}? (${o.result} after the switch)`;
}

function steps(o: HostOutcome): string {
  return o.steps.map((s) => `${s.step} ${formatMs(s.duration_ms)}${s.ok ? '' : ' ✗'}`).join(' · ');
}

/** The balancers' names the waits recorded, in their order (none: one balancer). */
function balancerNames(r: RolloutResult): string[] {
  const names = new Set<string>();
  for (const o of r.hosts)
    for (const s of o.steps) for (const name of Object.keys(s.balancers ?? {})) names.add(name);
  return [...names];
}

/** One balancer's view of a host: how long it took to have it out, and back in. */
function balancerView(o: HostOutcome, name: string): string {
  const of = (step: 'await-out' | 'await-in', word: string): string | undefined => {
    const record = o.steps.findLast((s) => s.step === step && s.balancers);
    if (!record?.balancers) return undefined;
    const ms = record.balancers[name];
    if (ms === undefined) return undefined;
    return ms === null
      ? `not ${word} within ${formatMs(record.bound_ms ?? 0)} ✗`
      : `${word} ${formatMs(ms)}`;
  };
  return (
    [of('await-out', 'out'), of('await-in', 'in')].filter((x) => x !== undefined).join(' · ') || '–'
  );
}

/** the canary's, bakes' and watch's verdicts, and the balancer's receipt (docs/canary.md) */
function evidence(r: RolloutResult): string[] {
  const judged = (r.judgements ?? []).map(
    (j) => `- ${j.kind} ${j.passed ? '✓ passed' : '✗ failed'}: ${j.reason}`,
  );
  const source = r.receipt?.source ?? '';
  const receipt = r.receipt
    ? [
        ...r.receipt.hosts.map((h) => `- ${hostReceiptLine(source, h.host, h)}`),
        `- ${receiptLine(r.receipt)}`,
      ]
    : [];
  const lines = [...judged, ...receipt].map(cell);
  return lines.length > 0 ? ['', ...lines] : [];
}

/** the timeline GitHub draws, when a host ran a step of its handshake */
function gantt(r: RolloutResult): string[] {
  const chart = rolloutGantt(reportFromResult(r));
  return chart === undefined ? [] : ['', chart];
}

/**
 * The Markdown appended to $GITHUB_STEP_SUMMARY: one row per host of the
 * plan with its result, its steps' durations and its release before and after;
 * through several balancers, a column per balancer with its own view (how long
 * it took to have the host out, and back in); then the timeline as a Mermaid
 * gantt, which GitHub draws (report/gantt.ts: bounded for large fleets).
 */
export function stepSummary(
  r: RolloutResult,
  releaseBefore: ReadonlyMap<string, string | null>,
): string {
  const skipped = r.skipped ?? [];
  const verdict = r.ok
    ? `✓ deployed${skipped.length > 0 ? `, ${skipped.length} host${skipped.length === 1 ? '' : 's'} skipped` : ''}`
    : '✗ rollout failed';
  const names = balancerNames(r);
  const header = ['Host', 'Result', 'Release before', 'Release after', ...names, 'Steps'];
  const rows = r.hosts.map((o) => {
    const before = releaseBefore.get(o.host) ?? undefined;
    const mark = o.result === 'deployed' ? '✓' : '✗';
    const result = `${mark} ${o.result}${o.leftDrained ? ', left drained' : ''}`;
    const views = names.map((name) => balancerView(o, name));
    return [o.host, result, before ?? '–', releaseAfter(o, r.release, before), ...views, steps(o)];
  });
  for (const host of r.notReached)
    rows.push([host, 'not reached', '–', 'unchanged', ...names.map(() => '–'), '']);
  // the release it runs is unknown: the host did not answer (deploy verify or the next rollout tells)
  for (const s of skipped)
    rows.push([
      s.host,
      `✗ unreachable (${s.reason}): skipped, not on ${r.release}`,
      'unknown: not reached',
      'unchanged',
      ...names.map(() => '–'),
      '',
    ]);
  const reasons = [r.blocked, r.prepareFailed, ...r.hosts.map((h) => h.error)].filter(
    (x): x is string => x !== undefined,
  );
  const markdown = [
    `### deploy rollout ${cell(r.release)}: ${verdict} in ${formatMs(r.elapsed_ms)}`,
    '',
    `| ${header.map(cell).join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((cells) => `| ${cells.map(cell).join(' | ')} |`),
    ...(reasons.length > 0 ? ['', ...reasons.map((x) => `- ${cell(x)}`)] : []),
    ...evidence(r),
    ...gantt(r),
    '',
  ].join('\n');
  return maskUrlPasswords(markdown);
}
