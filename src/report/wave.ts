import { formatMs } from '../timing/duration.js';
import { esc, pct } from './escape.js';
import { hostRow } from './host-row.js';
import type { ReportHost, ReportJudgement } from './model.js';

/** A report of more hosts than this folds each wave to its summary row (unless one of it failed). */
const OPEN_UP_TO = 50;

export interface WaveView {
  readonly index: number;
  readonly hosts: readonly ReportHost[];
  readonly judgement?: ReportJudgement;
}

/** From its first lock to its last step: a prepare runs ahead of its wave, during the ones before. */
function span(hosts: readonly ReportHost[]): { from: number; to: number } {
  const steps = hosts
    .flatMap((h) => [...h.steps, ...(h.rollback ?? [])])
    .filter((s) => s.step !== 'prepare');
  if (steps.length === 0) return { from: 0, to: 0 };
  return {
    from: Math.min(...steps.map((s) => s.offsetMs)),
    to: Math.max(...steps.map((s) => s.offsetMs + s.durationMs)),
  };
}

/** `✓ all deployed`, or what did not: `✗ 1 rolled-back` */
function tally(hosts: readonly ReportHost[]): string {
  const counts = new Map<string, number>();
  for (const h of hosts) {
    const result = h.result ?? 'no result';
    if (result !== 'deployed') counts.set(result, (counts.get(result) ?? 0) + 1);
  }
  if (counts.size === 0) return '✓ all deployed';
  return `✗ ${[...counts].map(([result, n]) => `${n} ${result}`).join(', ')}`;
}

/** A wave: a summary row (its span, its hosts' results, its verdict), then a row per host. */
export function waveSection(w: WaveView, total: number, hostsInAll: number): string {
  const { from, to } = span(w.hosts);
  const bad = w.hosts.some((h) => h.result !== 'deployed');
  const title = `Wave ${w.index + 1}`;
  const j = w.judgement;
  const verdict = j
    ? `<p class="judgement ${j.passed ? 'ok' : 'bad'}">${esc(`${j.kind} ${j.passed ? '✓ passed' : '✗ failed'}: ${j.reason}`)}</p>`
    : '';
  const name = `${title} · ${w.hosts.length} host${w.hosts.length === 1 ? '' : 's'}`;
  const open = bad || hostsInAll <= OPEN_UP_TO ? ' open' : '';
  return `<section class="wave${bad ? ' bad' : ''}" data-wave="${w.index + 1}" aria-label="${esc(title)}">
<details${open}><summary><span class="name">${esc(name)}</span><span class="verdict">${esc(tally(w.hosts))}</span><span class="track"><span class="span" role="img" aria-label="${esc(`${title} from ${formatMs(from)} to ${formatMs(to)}`)}" style="left:${pct(from, total)};width:${pct(to - from, total)}"></span></span><span class="receipt">${esc(formatMs(to - from))}</span></summary>
${verdict}<ol class="hosts" aria-label="${esc(`hosts of ${title.toLowerCase()}`)}">
${w.hosts.map((h) => hostRow(h, total)).join('\n')}
</ol></details></section>`;
}
