import { describe, expect, it } from 'vitest';
import { renderFleetVerification } from '../../../src/verify/render.js';

describe('the verify table', () => {
  it('shows the release each service answers with, and why a release is wrong', () => {
    const text = renderFleetVerification({
      ok: false,
      unreachable: [],
      otherRelease: [],
      hosts: [
        {
          host: 'web-1',
          target: 'i-1',
          reachable: true,
          report: {
            ok: false,
            elapsed_ms: 3,
            services: [
              { name: 'app', ok: true, code: 'ok', latency_ms: 2, passes: 1, release: 'v4' },
              {
                name: 'api',
                ok: false,
                code: 'release-mismatch',
                latency_ms: 3,
                passes: 0,
                release: 'v2',
                detail: 'answers v2, expected v4',
              },
              { name: 'worker', ok: true, code: 'ok', latency_ms: 0, passes: 1 },
            ],
          },
          balancer: { target: 'i-1', state: 'healthy', inRotation: true },
        },
      ],
    });
    expect(text.split('\n').slice(0, 4)).toEqual([
      'host   service  ok  release  latency  code',
      'web-1  app      ✓   v4       2ms      ok',
      'web-1  api      ✗   v2       3ms      release-mismatch (answers v2, expected v4)',
      'web-1  worker   ✓   -        0ms      ok',
    ]);
    expect(text).toContain('target i-1: healthy, in rotation');
  });
});

describe('the verify table of an unreachable host', () => {
  it("says 'unreachable' and leaves the reason to the command's one error line", () => {
    const text = renderFleetVerification({
      ok: false,
      unreachable: ['web-2'],
      otherRelease: [],
      hosts: [
        {
          host: 'web-2',
          target: 'web-2',
          reachable: false,
          error: 'connect ECONNREFUSED 127.0.0.2:22',
        },
      ],
    });
    expect(text).toContain('web-2  -        ✗   -        -        unreachable');
    expect(text).not.toContain('ECONNREFUSED');
  });
});

describe('the verify output of a large fleet', () => {
  const host = (i: number, ok = true) => ({
    host: `web-${i}`,
    target: `web-${i}`,
    reachable: true,
    report: {
      ok,
      elapsed_ms: 1,
      services: [{ name: 'app', ok, code: ok ? 'ok' : 'http-503', latency_ms: 1, passes: 1 }],
    },
    balancer: { target: `web-${i}`, state: 'healthy' as const, inRotation: true },
  });
  const fleet = {
    ok: false,
    unreachable: ['web-30'],
    otherRelease: [],
    hosts: [
      ...Array.from({ length: 27 }, (_, i) => host(i + 1)),
      host(28, false),
      {
        ...host(29),
        balancer: { target: 'web-29', state: 'unhealthy' as const, inRotation: false },
      },
      { host: 'web-30', target: 'web-30', reachable: false, error: 'refused' },
    ],
  };

  it('says a line per state over 20 hosts, and lists only the failing hosts', () => {
    const lines = renderFleetVerification(fleet).split('\n');
    expect(lines.slice(0, 6)).toEqual([
      '✓ 27 hosts: every service answers, in rotation',
      '✗ 1 host: a service fails its check',
      '✗ 1 host: out of rotation',
      '✗ 1 host: unreachable',
      '(every host: deploy verify -v, or --json)',
      '',
    ]);
    expect(lines.filter((l) => /^web-\d+ +app/.test(l))).toHaveLength(2);
    expect(lines.some((l) => l.startsWith('web-1 '))).toBe(false);
    expect(lines).toContain('web-30  -        ✗   -        -        unreachable');
  });

  it('prints every host with -v', () => {
    const lines = renderFleetVerification(fleet, { full: true }).split('\n');
    expect(lines[0]).toMatch(/^host +service/);
    expect(lines.filter((l) => /^web-\d+ +app/.test(l))).toHaveLength(29);
  });
});
