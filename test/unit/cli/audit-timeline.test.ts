import { describe, expect, it } from 'vitest';
import { mergeAudit, parseSince, renderTimeline } from '../../../src/cli/fleet/audit-timeline.js';
import type { AuditEntry } from '../../../src/protocol/results.js';
import { UsageError } from '../../../src/errors.js';

const e = (step: string, start: string, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  release: 'r2',
  step,
  start,
  duration_ms: 1500,
  result: 'ok',
  who: 'alice@laptop',
  ...extra,
});

describe('the merged audit timeline', () => {
  it("interleaves every host's entries by time, newest last", () => {
    const merged = mergeAudit([
      {
        host: 'web-1',
        entries: [e('drain', '2026-11-30T10:00:00Z'), e('stop', '2026-11-30T10:00:20Z')],
      },
      { host: 'web-2', entries: [e('watchdog.restart app', '2026-11-30T10:00:10Z')] },
    ]);
    expect(merged.map((m) => `${m.host} ${m.step}`)).toEqual([
      'web-1 drain',
      'web-2 watchdog.restart app',
      'web-1 stop',
    ]);
  });

  it('prints time, host, who, release, step, result and duration in columns, and why a step failed', () => {
    const text = renderTimeline(
      mergeAudit([
        {
          host: 'web-1',
          entries: [
            e('drain', '2026-11-30T10:00:00.123Z'),
            e('verify', '2026-11-30T10:00:05Z', { result: 'failed', detail: 'app ✗ status-500' }),
          ],
        },
      ]),
    );
    expect(text.split('\n')).toEqual([
      'time                  host   who           release  step    result  duration',
      '2026-11-30T10:00:00Z  web-1  alice@laptop  r2       drain   ok      1.5s',
      '2026-11-30T10:00:05Z  web-1  alice@laptop  r2       verify  failed  1.5s      app ✗ status-500',
    ]);
  });

  it('reads --since as a duration before now or as a time', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parseSince('2h', now)).toBe('2026-11-30T10:00:00.000Z');
    expect(parseSince('2026-11-29T08:30:00Z', now)).toBe('2026-11-29T08:30:00.000Z');
    expect(() => parseSince('yesterday', now)).toThrow(UsageError);
    expect(() => parseSince('yesterday', now)).toThrow(
      '--since "yesterday": give a duration before now (30m, 2h, 48h) or a time (2026-11-30T12:00:00Z)',
    );
  });
});
