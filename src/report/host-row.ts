import { formatMs } from '../timing/duration.js';
import { esc, pct } from './escape.js';
import type { ReportFigures, ReportHost, ReportStep } from './model.js';

/** `await-out 2.1s of ≤2.5s (lb-a 1.9s, lb-b 2.1s)`: what a bar says to a reader and a screen reader. */
export function stepLabel(host: string, s: ReportStep): string {
  const bound = s.boundMs === undefined ? '' : ` of ≤${formatMs(s.boundMs)}`;
  const views = Object.entries(s.balancers ?? {}).map(
    ([name, ms]) => `${name} ${ms === null ? 'not within the bound' : formatMs(ms)}`,
  );
  const by = views.length ? ` (${views.join(', ')})` : '';
  const failed = s.ok ? '' : ` failed${s.detail ? `: ${s.detail}` : ''}`;
  return `${host} ${s.step} ${formatMs(s.durationMs)}${bound}${by}${failed}`;
}

function bar(host: string, s: ReportStep, total: number, back: boolean): string {
  const label = esc(stepLabel(host, s));
  const bound =
    s.boundMs === undefined
      ? ''
      : `<span class="bound" style="left:${pct(s.offsetMs, total)};width:${pct(s.boundMs, total)}" title="${esc(`${s.step} bound ≤${formatMs(s.boundMs)}`)}" aria-hidden="true"></span>`;
  const cls = `bar s-${esc(s.step)}${s.ok ? '' : ' failed'}${back ? ' back' : ''}`;
  const data = `data-step="${esc(s.step)}" data-offset-ms="${s.offsetMs}" data-duration-ms="${s.durationMs}"`;
  return `${bound}<span class="${cls}" ${data} role="img" aria-label="${label}" title="${label}" style="left:${pct(s.offsetMs, total)};width:${pct(s.durationMs, total)}"></span>`;
}

export function figures(f: ReportFigures): string {
  const bound = f.reset !== undefined ? 'at least ' : '';
  if (f.unread !== undefined) return `not read: ${f.unread}`;
  return `${bound}${f.failed} failed of ${bound}${f.requests}`;
}

const MARK: Readonly<Record<string, string>> = { deployed: '✓' };

/** One host: its name, verdict, its steps drawn to scale, its receipt, and what went wrong. */
export function hostRow(h: ReportHost, total: number): string {
  const result = h.result ?? 'no result';
  const verdict = `${MARK[result] ?? '✗'} ${result}${h.leftDrained ? ', left drained' : ''}`;
  const bars = [
    ...h.steps.map((s) => bar(h.host, s, total, false)),
    ...(h.rollback ?? []).map((s) => bar(h.host, s, total, true)),
  ].join('');
  const receipt = h.receipt ? esc(figures(h.receipt)) : '';
  const error = h.error ? `<p class="error">${esc(h.error)}</p>` : '';
  const ok = result === 'deployed' ? 'ok' : 'bad';
  return `<li class="host ${ok}" data-host="${esc(h.host)}" data-result="${esc(result)}"><span class="name">${esc(h.host)}</span><span class="verdict">${esc(verdict)}</span><span class="track" role="group" aria-label="${esc(`${h.host}: ${h.steps.length} steps`)}">${bars}</span><span class="receipt">${receipt}</span>${error}</li>`;
}
