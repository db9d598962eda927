import { describe, expect, it } from 'vitest';
import { cpuShares, formatShares, parseCpuTimes } from '../../../scripts/bench/proc-stat.js';

const stat = (user: number, idle: number, steal: number) =>
  `cpu  ${user} 10 ${user / 2} ${idle} 5 0 20 ${steal} 0 0\ncpu0 1 2 3 4 5 6 7 8 9 10\nintr 1\n`;

describe('the machine’s CPU shares from /proc/stat', () => {
  it('reads busy, idle and steal from the cpu line', () => {
    expect(parseCpuTimes(stat(1000, 3000, 40))).toEqual({
      busy: 1000 + 10 + 500 + 20,
      idle: 3005,
      steal: 40,
    });
    expect(parseCpuTimes('intr 1\n')).toBeUndefined();
  });

  it('says what share of the time between two readings was busy, idle or stolen', () => {
    const before = parseCpuTimes(stat(1000, 3000, 40));
    const after = parseCpuTimes(stat(1600, 3300, 140));
    // busy +600 user +300 system; idle +300; steal +100
    const shares = cpuShares(before, after);
    expect(shares?.busy).toBeCloseTo(900 / 1300);
    expect(shares?.idle).toBeCloseTo(300 / 1300);
    expect(shares?.steal).toBeCloseTo(100 / 1300);
    expect(formatShares(cpuShares(before, after))).toBe('busy 69 % · idle 23 % · steal 8 %');
  });

  it('says nothing it could not read', () => {
    expect(cpuShares(undefined, parseCpuTimes(stat(1, 1, 1)))).toBeUndefined();
    expect(formatShares(undefined)).toBe('not read');
  });
});
