import { formatMs } from '../timing/duration.js';
import type { Report, ReportHost, ReportStep } from './model.js';

/** The handshake in four phases (and a rollback): a summary's bar per phase, not per step. */
const PHASE: Readonly<Record<string, string>> = {
  lock: 'out',
  capacity: 'out',
  drain: 'out',
  'await-out': 'out',
  overlap: 'overlap',
  stop: 'restart',
  switch: 'restart',
  start: 'restart',
  verify: 'restart',
  undrain: 'in',
  'await-in': 'in',
  confirm: 'in',
  unlock: 'in',
  rollback: 'rollback',
};

/** Drawn host by host up to this many hosts; beyond, a bar per wave and the hosts that failed. */
const HOSTS_DRAWN = 20;
/** Waves drawn at most, and hosts that did not deploy drawn beside them: a summary stays a page. */
const WAVES_DRAWN = 40;
const FAILED_DRAWN = 10;

/** Mermaid ends a task's name at `:` and a line at `;` or `#`. */
const label = (text: string): string => text.replace(/[:;#\r\n]/g, ' ');

interface Bar {
  readonly name: string;
  readonly from: number;
  readonly to: number;
  readonly failed: boolean;
}

function phases(steps: readonly ReportStep[]): Bar[] {
  const bars: (Bar & { phase: string })[] = [];
  for (const s of steps) {
    const phase = PHASE[s.step];
    if (phase === undefined) continue;
    const last = bars.at(-1);
    const to = s.offsetMs + s.durationMs;
    if (last?.phase === phase)
      bars[bars.length - 1] = { ...last, to, failed: last.failed || !s.ok };
    else bars.push({ phase, name: phase, from: s.offsetMs, to, failed: !s.ok });
  }
  return bars;
}

function task(b: Bar): string {
  const tag = b.failed ? 'crit' : 'done';
  return `    ${label(b.name)} ${formatMs(b.to - b.from)} :${tag}, ${Math.round(b.from)}, ${Math.round(Math.max(b.to, b.from + 1))}`;
}

/** A host's section; none for a host with no step of its handshake (Mermaid refuses an empty one). */
function hostSection(h: ReportHost): string[] {
  const bars = phases([...h.steps, ...(h.rollback ?? [])]);
  return bars.length ? [`  section ${label(h.host)}`, ...bars.map(task)] : [];
}

function waveBar(index: number, hosts: readonly ReportHost[]): Bar | undefined {
  const steps = hosts.flatMap((h) => h.steps.filter((s) => PHASE[s.step] !== undefined));
  if (steps.length === 0) return undefined;
  const from = Math.min(...steps.map((s) => s.offsetMs));
  const to = Math.max(...steps.map((s) => s.offsetMs + s.durationMs));
  const failed = hosts.some((h) => h.result !== 'deployed');
  return { name: `${hosts.length} hosts`, from, to, failed };
}

/**
 * A compact Mermaid gantt of a rollout (GitHub renders it in a step
 * summary): each host's handshake in phases, or, past 20 hosts, a bar per
 * wave with the hosts that did not deploy drawn beside it; at most 40 waves.
 */
export function rolloutGantt(r: Report): string | undefined {
  const byName = new Map(r.hosts.map((h) => [h.host, h]));
  const waves = r.waves.map((w) => w.flatMap((h) => byName.get(h) ?? [])).filter((w) => w.length);
  const failed = waves.flat().filter((h) => h.result !== 'deployed');
  const drawn = new Set(failed.slice(0, FAILED_DRAWN));
  const lines =
    r.hosts.length <= HOSTS_DRAWN
      ? r.hosts.flatMap(hostSection)
      : waves
          .slice(0, WAVES_DRAWN)
          .flatMap((w, i) => [
            ...[waveBar(i, w)].flatMap((bar) =>
              bar ? [`  section wave ${i + 1}`, task(bar)] : [],
            ),
            ...w.filter((h) => drawn.has(h)).flatMap(hostSection),
          ]);
  if (lines.length === 0) return undefined;
  const more = [
    ...(waves.length > WAVES_DRAWN ? [`${waves.length - WAVES_DRAWN} more waves`] : []),
    ...(r.hosts.length > HOSTS_DRAWN && failed.length > FAILED_DRAWN
      ? [`${failed.length - FAILED_DRAWN} more hosts that did not deploy`]
      : []),
  ];
  return [
    '```mermaid',
    'gantt',
    `  title ${label(`${r.release} — ${r.ok ? 'deployed' : 'rollout failed'} in ${formatMs(r.elapsedMs)}`)}`,
    '  dateFormat x',
    '  axisFormat %M:%S',
    ...lines,
    '```',
    ...(more.length > 0
      ? ['', `Not drawn: ${more.join(', ')} (the table above has every host).`]
      : []),
  ].join('\n');
}
