import { UsageError } from '../errors.js';
import type { Report, ReportHost, ReportStep } from './model.js';
import {
  eventShape,
  rolloutResultShape,
  stepShape,
  waveFields,
  type RolloutResultLine,
} from './shapes.js';

type Step = ReturnType<typeof stepShape.parse>;

export function toStep(s: Step): ReportStep {
  return {
    step: s.step,
    offsetMs: s.offset_ms,
    durationMs: s.duration_ms,
    ok: s.ok,
    ...(s.bound_ms === undefined ? {} : { boundMs: s.bound_ms }),
    ...(s.detail === undefined ? {} : { detail: s.detail }),
    ...(s.balancers === undefined ? {} : { balancers: s.balancers }),
  };
}

/** What the events said before the result (or instead of one, when the stream was cut short). */
function fromEvents(lines: readonly Record<string, unknown>[]) {
  const steps = new Map<string, ReportStep[]>();
  const waves: string[][] = [];
  let started: string | undefined;
  for (const line of lines) {
    const e = eventShape.safeParse(line);
    if (!e.success) continue;
    started ??= e.data.time;
    if (e.data.event === 'step' && e.data.host !== undefined) {
      const s = stepShape.safeParse(e.data.fields);
      if (s.success) steps.set(e.data.host, [...(steps.get(e.data.host) ?? []), toStep(s.data)]);
    }
    if (e.data.event === 'wave') {
      const w = waveFields.safeParse(e.data.fields);
      if (w.success) waves[w.data.wave - 1] = w.data.hosts.map((h) => h.host);
    }
  }
  return { steps, waves: waves.filter((w) => w !== undefined), started };
}

function hostsOf(r: RolloutResultLine): ReportHost[] {
  const back = new Map((r.fleet_rollback?.hosts ?? []).map((h) => [h.host, h.steps.map(toStep)]));
  const receipts = new Map((r.receipt?.hosts ?? []).map((h) => [h.host, h]));
  return r.hosts.map((h) => {
    const receipt = receipts.get(h.host);
    const rollback = back.get(h.host);
    return {
      host: h.host,
      result: h.result,
      steps: h.steps.map(toStep),
      ...(h.error === undefined ? {} : { error: h.error }),
      ...(h.left_drained === undefined ? {} : { leftDrained: h.left_drained }),
      ...(receipt === undefined ? {} : { receipt }),
      ...(rollback === undefined ? {} : { rollback }),
    };
  });
}

function end(steps: readonly ReportStep[]): number {
  return Math.max(0, ...steps.map((s) => s.offsetMs + s.durationMs));
}

/** A rollout's `--json` stream: the result line when there is one, else its step events. */
export function reportFromStream(lines: readonly Record<string, unknown>[], name: string): Report {
  const events = fromEvents(lines);
  const resultLine = lines.findLast((l) => l.event === 'result');
  const started = events.started === undefined ? {} : { started: events.started };
  if (resultLine === undefined) {
    const hosts = [...events.steps].map(([host, steps]) => ({ host, steps }));
    if (hosts.length === 0)
      throw new UsageError(`${name}: no step of any host in it; is it a rollout's --json stream?`);
    return {
      release: '?',
      elapsedMs: Math.max(...hosts.map((h) => end(h.steps))),
      waves: events.waves.length ? events.waves : [hosts.map((h) => h.host)],
      hosts,
      notReached: [],
      judgements: [],
      errors: ['the stream ends before its result line: the rollout was cut short'],
      source: 'the --json stream',
      ...started,
    };
  }
  const parsed = rolloutResultShape.safeParse(resultLine);
  if (!parsed.success)
    throw new UsageError(
      `${name}: its result line is not a rollout's (${typeof resultLine.error === 'string' ? resultLine.error : 'no hosts, steps or release'}); give the output of 'deploy rollout --json'`,
    );
  const r = parsed.data;
  const hosts = hostsOf(r);
  return {
    release: r.release,
    ok: r.ok,
    elapsedMs: Math.max(
      r.elapsed_ms,
      ...hosts.map((h) => end([...h.steps, ...(h.rollback ?? [])])),
    ),
    waves: events.waves.length ? events.waves : [hosts.map((h) => h.host)],
    hosts,
    notReached: r.not_reached,
    judgements: r.judgements,
    ...(r.receipt === undefined
      ? {}
      : { receipt: { source: r.receipt.source, total: r.receipt.total } }),
    errors: [r.blocked, r.prepare_failed, r.error].filter((x): x is string => x !== undefined),
    source: 'the --json stream',
    ...started,
  };
}
