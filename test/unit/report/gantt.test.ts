import { describe, expect, it } from 'vitest';
import { rolloutGantt } from '../../../src/report/gantt.js';
import { readReport } from '../../../src/report/read.js';
import { rolloutStream } from '../../support/rollout-stream.js';

const gantt = (hosts: number, batch: number, failAt?: number) =>
  rolloutGantt(
    readReport(rolloutStream({ hosts, batch, ...(failAt === undefined ? {} : { failAt }) }), {
      name: 'r',
    }),
  ) ?? '';

describe('the step summary’s gantt', () => {
  it("draws each host's handshake in phases, from its lock to its unlock, in ms since the start", () => {
    const lines = gantt(2, 1).split('\n');
    expect(lines.slice(0, 5)).toEqual([
      '```mermaid',
      'gantt',
      '  title r2 — deployed in 21s',
      '  dateFormat x',
      '  axisFormat %M:%S',
    ]);
    expect(lines.slice(5, 10)).toEqual([
      '  section web-001',
      '    out 2.2s :done, 40, 2195',
      '    overlap 2.0s :done, 2195, 4195',
      '    restart 2.8s :done, 4195, 7010',
      '    in 3.4s :done, 7010, 10440',
    ]);
    expect(lines.at(-1)).toBe('```');
  });

  it('draws the failed phase as critical and the rollback after it', () => {
    const text = gantt(4, 2, 3);
    expect(text).toMatch(
      /section web-004\n(.*\n){2}\s+restart \S+ :crit, \d+, \d+\n\s+rollback 3\.0s :done/,
    );
  });

  it('past 20 hosts draws a bar per wave and the host that did not deploy, a page whatever the fleet', () => {
    const text = gantt(500, 10, 487);
    const lines = text.split('\n');
    expect(lines.filter((l) => l.startsWith('  section wave'))).toHaveLength(40);
    expect(text).toMatch(/section wave 1\n\s+10 hosts \S+ :done, \d+, \d+/);
    expect(lines.length).toBeLessThan(120);
    expect(text.endsWith('Not drawn: 9 more waves (the table above has every host).')).toBe(true);
    expect(text).not.toContain('web-488');
    const failedEarly = gantt(100, 10, 43);
    expect(failedEarly).toMatch(/section wave 5\n\s+10 hosts \S+ :crit.*\n\s+section web-044\n/);
  });

  it('keeps a name Mermaid would cut (a colon, a semicolon, a hash) on its line', () => {
    const r = readReport(rolloutStream({ hosts: 1, batch: 1, release: 'r:1;#x' }), { name: 'r' });
    expect(rolloutGantt(r)).toContain('  title r 1  x — deployed in');
  });
});
