import { describe, expect, it } from 'vitest';
import { renderStatus, unreachableLine } from '../../../src/cli/fleet/status-command.js';
import { targetJson } from '../../../src/cli/target-json.js';

const settled = (i: number, release = 'r7') => ({
  host: `web-${i}`,
  line: `web-${i}: release ${release} …`,
  release,
});

describe('deploy status on a large fleet', () => {
  it('up to 20 hosts: a line each', () => {
    const lines = Array.from({ length: 20 }, (_, i) => settled(i + 1));
    expect(renderStatus(lines, false)).toHaveLength(20);
  });

  it('over 20: the settled hosts counted per release, the others on their own line', () => {
    const lines = [
      ...Array.from({ length: 497 }, (_, i) => settled(i + 1)),
      settled(498, 'r6'),
      { host: 'web-499', line: 'web-499: release r7 …, DRAINED by deploy drain …' },
      { host: 'web-500', line: 'web-500: unreachable: connection refused' },
    ];
    expect(renderStatus(lines, false)).toEqual([
      '✓ 497 hosts: release r7, unlocked, not drained, in rotation',
      '✓ 1 host: release r6, unlocked, not drained, in rotation',
      '(every host: deploy status -v, or --json)',
      'web-499: release r7 …, DRAINED by deploy drain …',
      'web-500: unreachable: connection refused',
    ]);
    expect(renderStatus(lines, true)).toHaveLength(500);
  });
});

describe('deploy status of an unreachable host', () => {
  it("keeps the balancer's view of it, as --json does", () => {
    const target = targetJson('10.0.1.12:8000', {
      target: '10.0.1.12:8000',
      state: 'healthy',
      inRotation: true,
    });
    expect(unreachableLine('web-2', 'ssh: connection refused', target)).toBe(
      'web-2: unreachable: ssh: connection refused; balancer healthy (in rotation)',
    );
  });
});
