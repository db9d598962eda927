import { formatMs } from '../timing/duration.js';
import { esc, pct } from './escape.js';
import { figures } from './host-row.js';
import type { Report, ReportHost, ReportJudgement } from './model.js';
import { ticks } from './scale.js';
import { CSS, STEP_COLOURS } from './page-style.js';
import { waveSection, type WaveView } from './wave.js';

function end(h: ReportHost): number {
  const steps = [...h.steps, ...(h.rollback ?? [])];
  return Math.max(0, ...steps.map((s) => s.offsetMs + Math.max(s.durationMs, s.boundMs ?? 0)));
}

/**
 * Each judgement to the wave it followed: its hosts are every host on the new
 * release by then, so the wave is the one whose hosts, with those before it, it names.
 */
function waveViews(r: Report): WaveView[] {
  const byName = new Map(r.hosts.map((h) => [h.host, h]));
  const placed = new Set(r.waves.flat());
  const waves = [...r.waves, r.hosts.filter((h) => !placed.has(h.host)).map((h) => h.host)];
  let seen = 0;
  return waves
    .filter((w) => w.length > 0)
    .map((w, index) => {
      seen += w.length;
      const judgement: ReportJudgement | undefined = r.judgements.find(
        (j) => j.hosts.length === seen && w.every((h) => j.hosts.includes(h)),
      );
      const hosts = w.flatMap((h) => byName.get(h) ?? []);
      return { index, hosts, ...(judgement ? { judgement } : {}) };
    })
    .filter((w) => w.hosts.length > 0);
}

function header(r: Report): string {
  const verdict = r.ok === undefined ? 'no result' : r.ok ? '✓ deployed' : '✗ rollout failed';
  const facts = [
    `${r.hosts.length} host${r.hosts.length === 1 ? '' : 's'} in ${r.waves.length} wave${r.waves.length === 1 ? '' : 's'}`,
    `${verdict} in ${formatMs(r.elapsedMs)}`,
    ...(r.started ? [`started ${r.started}`] : []),
    `from ${r.source}`,
  ];
  const bad = r.ok === false || r.ok === undefined;
  return `<h1>deploy rollout ${esc(r.release)}</h1><p class="facts${bad ? ' bad' : ''}" data-ok="${String(r.ok ?? '')}">${esc(facts.join(' · '))}</p>`;
}

function evidence(r: Report): string {
  const rows: string[] = [];
  if (r.receipt)
    rows.push(
      `<tr><th>receipt (${esc(r.receipt.source)})</th><td>${esc(figures(r.receipt.total))} requests in all</td></tr>`,
    );
  for (const j of r.judgements)
    rows.push(
      `<tr><th>${esc(j.kind)}</th><td>${esc(`${j.passed ? '✓ passed' : '✗ failed'}: ${j.reason}`)}</td></tr>`,
    );
  if (r.notReached.length)
    rows.push(`<tr><th>not reached</th><td>${esc(r.notReached.join(', '))}</td></tr>`);
  for (const e of r.errors) rows.push(`<tr><th>stopped</th><td class="error">${esc(e)}</td></tr>`);
  return rows.length ? `<table aria-label="evidence">${rows.join('')}</table>` : '';
}

function axis(total: number): string {
  const marks = ticks(total)
    .map((t) => `<span class="tick" style="left:${pct(t.ms, total)}">${esc(t.label)}</span>`)
    .join('');
  return `<div class="axis" aria-hidden="true"><span>host</span><span>result</span><span class="track">${marks}</span><span>receipt</span></div>`;
}

const legend = `<ul class="legend" aria-label="steps">${STEP_COLOURS.map(([s]) => `<li><span class="s-${s}"></span>${s}</li>`).join('')}<li><span class="bound"></span>a balancer wait's bound (timing model)</li></ul>`;

/** One self-contained page: inline style, no script, nothing fetched. */
export function renderReport(r: Report): string {
  const total = Math.max(r.elapsedMs, ...r.hosts.map(end), 1);
  const waves = waveViews(r)
    .map((w) => waveSection(w, total, r.hosts.length))
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`deploy rollout ${r.release}`)}</title><style>${CSS}</style></head>
<body><main data-total-ms="${total}">
${header(r)}
${evidence(r)}
${legend}
${axis(total)}
${waves}
</main></body></html>
`;
}
