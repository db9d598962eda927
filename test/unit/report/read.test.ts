import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { readReport } from '../../../src/report/read.js';
import { rolloutStream } from '../../support/rollout-stream.js';

const audit = (host: string, step: string, at: number, extra: object = {}) =>
  JSON.stringify({
    host,
    step,
    time: new Date(Date.UTC(2026, 11, 1, 10) + at).toISOString(),
    duration_ms: 100,
    result: 'ok',
    release: 'r2',
    who: 'alice@laptop',
    ...extra,
  });

describe("reading a rollout's --json stream", () => {
  it('takes each host, its steps and its wave from the stream and the result line', () => {
    const r = readReport(rolloutStream({ hosts: 4, batch: 2 }), { name: 'r.ndjson' });
    expect(r.release).toBe('r2');
    expect(r.ok).toBe(true);
    expect(r.waves).toEqual([
      ['web-001', 'web-002'],
      ['web-003', 'web-004'],
    ]);
    expect(r.hosts.map((h) => h.result)).toEqual(['deployed', 'deployed', 'deployed', 'deployed']);
    const awaitOut = r.hosts[0]?.steps.find((s) => s.step === 'await-out');
    expect(awaitOut).toMatchObject({ durationMs: 2100, boundMs: 2500, ok: true });
    expect(r.receipt?.total).toEqual({ requests: 3600, failed: 0 });
  });

  it('marks the host rolled back, the hosts never reached, and why the rollout stopped', () => {
    const r = readReport(rolloutStream({ hosts: 6, batch: 2, failAt: 3 }), { name: 'r.ndjson' });
    expect(r.ok).toBe(false);
    const failed = r.hosts.find((h) => h.host === 'web-004');
    expect(failed?.result).toBe('rolled-back');
    expect(failed?.steps.find((s) => !s.ok)?.step).toBe('verify');
    expect(r.notReached).toEqual(['web-005', 'web-006']);
    expect(r.errors).toEqual(['rollout failed']);
  });

  it('draws a stream cut short (no result line) from its step events, and says so', () => {
    const lines = rolloutStream({ hosts: 2, batch: 1 }).trim().split('\n');
    const r = readReport(lines.slice(0, -1).join('\n'), { name: 'r.ndjson' });
    expect(r.ok).toBeUndefined();
    expect(r.hosts.map((h) => [h.host, h.steps.length])).toEqual([
      ['web-001', 13],
      ['web-002', 13],
    ]);
    expect(r.errors[0]).toMatch(/cut short/);
  });

  it('refuses a line that is not JSON with the file and line, exit 2', () => {
    const read = () => readReport('{"event":"step"}\nnot json\n', { name: 'r.ndjson' });
    expect(read).toThrow(UsageError);
    expect(read).toThrow(
      /^r\.ndjson:2: not a JSON line; give the output of 'deploy rollout --json'/,
    );
  });

  it("refuses another command's result (a verify) rather than drawing nothing", () => {
    const verify = JSON.stringify({ event: 'result', ok: true, hosts: [{ host: 'web-1' }] });
    expect(() => readReport(verify, { name: 'v.ndjson' })).toThrow(/not a rollout's/);
  });
});

describe('reading an audit', () => {
  it("takes the newest release's steps from deploy audit --json, offsets from the first line", () => {
    const entries = [
      JSON.parse(audit('web-1', 'lock', 0, { release: 'r1' })) as object,
      ...['lock', 'drain', 'confirm', 'unlock'].map(
        (s, i) => JSON.parse(audit('web-1', s, 1000 + i * 100)) as object,
      ),
      ...['lock', 'drain', 'confirm', 'unlock'].map(
        (s, i) => JSON.parse(audit('web-2', s, 2000 + i * 100)) as object,
      ),
      JSON.parse(audit('web-2', 'watchdog.restart app', 3000)) as object,
    ];
    const text = JSON.stringify({ event: 'result', ok: true, entries });
    const r = readReport(text, { name: 'audit.json' });
    expect(r.release).toBe('r2');
    expect(r.source).toBe('the audit');
    expect(r.waves).toEqual([['web-1'], ['web-2']]);
    expect(r.hosts[1]?.steps.map((s) => [s.step, s.offsetMs])).toEqual([
      ['lock', 1000],
      ['drain', 1100],
      ['confirm', 1200],
      ['unlock', 1300],
    ]);
    expect(r.hosts.map((h) => h.result)).toEqual(['deployed', 'deployed']);
  });

  it("reads a host's own audit.jsonl with --host, the last run of the release only", () => {
    const lines = [
      audit('x', 'lock', 0),
      audit('x', 'verify', 100, { result: 'failed', detail: 'app ✗' }),
      audit('x', 'rollback', 200),
      audit('x', 'prepare', 5000),
      audit('x', 'lock', 6000),
      audit('x', 'confirm', 6100),
    ].map((l) => l.replace('"host":"x",', ''));
    const r = readReport(lines.join('\n'), { name: 'audit.jsonl', host: 'web-7' });
    expect(r.hosts).toHaveLength(1);
    expect(r.hosts[0]?.host).toBe('web-7');
    expect(r.hosts[0]?.steps.map((s) => s.step)).toEqual(['prepare', 'lock', 'confirm']);
    expect(r.hosts[0]?.result).toBe('deployed');
  });

  it('names a release the audit does not hold', () => {
    expect(() => readReport(audit('web-1', 'lock', 0), { name: 'a.jsonl', release: 'r9' })).toThrow(
      "a.jsonl: no audit line of release r9; see 'deploy releases'",
    );
  });
});
