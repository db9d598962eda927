/**
 * A rollout's `--json` stream as docs/json.md describes it (wave, step and
 * result lines), for hosts in waves with made-up but plausible durations:
 * the report's unit tests and its 500-host browser test draw it.
 */
const STEPS: readonly [string, number, number?][] = [
  ['lock', 30],
  ['capacity', 5],
  ['drain', 20],
  ['await-out', 2100, 2500],
  ['overlap', 2000],
  ['stop', 900],
  ['switch', 15],
  ['start', 700],
  ['verify', 1200],
  ['undrain', 20],
  ['await-in', 2300, 3500],
  ['confirm', 1100],
  ['unlock', 10],
];

export interface StreamOptions {
  readonly hosts: number;
  readonly batch: number;
  /** the host (by index) whose verify fails and is rolled back; the rollout stops there */
  readonly failAt?: number;
  readonly release?: string;
}

export interface FakeStep {
  step: string;
  offset_ms: number;
  duration_ms: number;
  ok: boolean;
  bound_ms?: number;
  detail?: string;
}

const name = (i: number): string => `web-${String(i + 1).padStart(3, '0')}`;

function hostSteps(at: number, jitter: number, fails: boolean): FakeStep[] {
  const steps: FakeStep[] = [];
  let t = at;
  for (const [step, ms, bound] of STEPS) {
    const duration_ms = ms + ((jitter * 37) % 200);
    const failed = fails && step === 'verify';
    steps.push({
      step,
      offset_ms: t,
      duration_ms,
      ok: !failed,
      ...(bound === undefined ? {} : { bound_ms: bound }),
      ...(failed ? { detail: 'app ✗ status-500' } : {}),
    });
    t += duration_ms;
    if (failed) {
      steps.push({ step: 'rollback', offset_ms: t, duration_ms: 3000, ok: true });
      break;
    }
  }
  return steps;
}

export function rolloutStream(o: StreamOptions): string {
  const release = o.release ?? 'r2';
  const lines: object[] = [];
  const outcomes: object[] = [];
  const notReached: string[] = [];
  let at = 40;
  let stopped = false;
  const time = (ms: number) => new Date(Date.UTC(2026, 11, 1, 10) + ms).toISOString();
  for (let w = 0; w * o.batch < o.hosts; w++) {
    const wave = Array.from(
      { length: Math.min(o.batch, o.hosts - w * o.batch) },
      (_, k) => w * o.batch + k,
    );
    if (stopped) {
      notReached.push(...wave.map(name));
      continue;
    }
    lines.push({
      level: 'debug',
      event: 'wave',
      message: `wave ${w + 1}`,
      fields: { wave: w + 1, hosts: wave.map((i) => ({ host: name(i), release_before: 'r1' })) },
      time: time(at),
    });
    let end = at;
    for (const i of wave) {
      const fails = i === o.failAt;
      const steps = hostSteps(at, i, fails);
      for (const s of steps)
        lines.push({
          level: s.ok ? 'info' : 'error',
          event: 'step',
          message: `${s.step}`,
          host: name(i),
          fields: s,
          time: time(s.offset_ms + s.duration_ms),
        });
      const last = steps.at(-1);
      end = Math.max(end, (last?.offset_ms ?? 0) + (last?.duration_ms ?? 0));
      outcomes.push({
        host: name(i),
        result: fails ? 'rolled-back' : 'deployed',
        steps,
        left_drained: false,
        ...(fails ? { stopped_at: 'verify', error: 'verify failed: app ✗ status-500' } : {}),
      });
      stopped ||= fails;
    }
    at = end + 5;
  }
  lines.push({
    event: 'result',
    schema_version: 1,
    ok: !stopped,
    exit_code: stopped ? 1 : 0,
    release,
    hosts: outcomes,
    not_reached: notReached,
    elapsed_ms: at,
    receipt: {
      source: 'haproxy be_api',
      hosts: outcomes.map((h) => ({
        host: (h as { host: string }).host,
        requests: 900,
        failed: 0,
      })),
      total: { requests: 900 * outcomes.length, failed: 0 },
    },
    ...(stopped ? { error: 'rollout failed' } : {}),
  });
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}
