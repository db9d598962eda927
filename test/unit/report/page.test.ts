import { describe, expect, it } from 'vitest';
import type { Report } from '../../../src/report/model.js';
import { renderReport } from '../../../src/report/page.js';
import { readReport } from '../../../src/report/read.js';
import { ticks } from '../../../src/report/scale.js';
import { rolloutStream } from '../../support/rollout-stream.js';

const page = (hosts: number, batch: number, failAt?: number) =>
  renderReport(
    readReport(rolloutStream({ hosts, batch, ...(failAt === undefined ? {} : { failAt }) }), {
      name: 'r',
    }),
  );

describe('the report page', () => {
  it('is one self-contained document: no script, nothing fetched, a policy that forbids both', () => {
    const html = page(4, 2);
    expect(html).not.toMatch(/<script|<link|<img|src=|url\(/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
  });

  it('draws every step of every host as a bar with its offset and duration, to scale', () => {
    const html = page(2, 1);
    const bar =
      /data-host="web-002"[\s\S]*?data-step="await-out" data-offset-ms="(\d+)" data-duration-ms="(\d+)"[^>]*aria-label="([^"]+)"[^>]*style="left:([\d.]+)%;width:([\d.]+)%"/.exec(
        html,
      );
    expect(bar?.[3]).toBe('web-002 await-out 2.1s of ≤2.5s');
    const total = Number(/class="facts[^"]*"[^>]*>[^<]*in (\d+)s/.exec(html)?.[1]) * 1000;
    expect(Number(bar?.[5])).toBeCloseTo((Number(bar?.[2]) / total) * 100, 0);
  });

  it('marks the failed step and the rollback, and prints the error under its host', () => {
    const html = page(6, 2, 3);
    expect(html).toMatch(/class="bar s-verify failed" data-step="verify"/);
    expect(html).toMatch(/data-host="web-004" data-result="rolled-back"/);
    expect(html).toContain('<p class="error">verify failed: app ✗ status-500</p>');
    expect(html).toMatch(/<th>not reached<\/th><td>web-005, web-006<\/td>/);
  });

  it('shows what a host or a step said as text, never as markup', () => {
    const r: Report = {
      release: 'r<1>',
      elapsedMs: 10,
      waves: [['<b>x</b>']],
      hosts: [
        { host: '<b>x</b>', result: 'failed', steps: [], error: '"><script>alert(1)</script>' },
      ],
      notReached: [],
      judgements: [],
      errors: [],
      source: 'the --json stream',
    };
    const html = renderReport(r);
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;b&gt;x&lt;/b&gt;');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
  });

  it('folds a wave of many hosts to its summary row unless one of them failed', () => {
    const html = page(60, 30, 45);
    expect(html).toMatch(/data-wave="1"[^>]*>\s*<details>/);
    expect(html).toMatch(/data-wave="2"[^>]*>\s*<details open>/);
    expect(html).toContain('✗ 1 rolled-back');
  });

  it("puts the canary's verdict under the wave it followed", () => {
    const r = readReport(rolloutStream({ hosts: 3, batch: 1 }), { name: 'r' });
    const html = renderReport({
      ...r,
      judgements: [{ kind: 'canary', hosts: ['web-001'], passed: true, reason: '0 errors of 900' }],
    });
    expect(html).toMatch(
      /data-wave="1"[\s\S]*canary ✓ passed: 0 errors of 900[\s\S]*data-wave="2"/,
    );
  });

  it('stays a few MB for 500 hosts', () => {
    expect(page(500, 25).length).toBeLessThan(4_000_000);
  });
});

describe('the time axis', () => {
  it('ticks at a round step, at most ten of them', () => {
    expect(ticks(22_000).map((t) => t.label)).toEqual(['0s', '5.0s', '10s', '15s', '20s']);
    expect(ticks(14 * 60_000).length).toBeLessThanOrEqual(10);
  });
});
