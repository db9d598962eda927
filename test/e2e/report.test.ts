import { copyFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath } from '../../scripts/build.js';
import { formatMs } from '../../src/timing/duration.js';
import { rolloutStream } from '../support/rollout-stream.js';
import { launchChromium, openFile } from './browser-page.js';
import { rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';

/**
 * `deploy report` of a real lab rollout, opened in a real browser (Debian's
 * chromium through playwright-core): the page's timeline against the NDJSON it
 * came from, nothing fetched, no console error; and a 500-host page. The
 * screenshots stay in the work dir (HANDOFF_DOCS_SCREENSHOT=1: also docs/report.png).
 */
const WORK = '/tmp/handoff-e2e-150';
let fleet: Fleet;
let browser: Browser;
beforeAll(async () => {
  [fleet, browser] = await Promise.all([
    startFleet({ hosts: 3, subnet: '127.0.150', workDir: WORK }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await Promise.all([fleet?.stop(), browser?.close()]);
});

async function report(input: string, output: string) {
  const r = await execa(process.execPath, [bundlePath, 'report', input, '-o', output], {
    reject: false,
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stderr;
}

interface Step {
  step: string;
  offset_ms: number;
  duration_ms: number;
  bound_ms?: number;
}

describe('the report of a lab rollout, in a browser', () => {
  it("draws every host's steps where the NDJSON puts them, fetches nothing and logs no error", async () => {
    await fleet.stageEverywhere('r2');
    const run = await rolloutUnderLoad(fleet, 'r2');
    expect(run.code, run.log).toBe(0);
    const ndjson = path.join(WORK, 'rollout.ndjson');
    const html = path.join(WORK, 'report.html');
    await writeFile(ndjson, run.stdout);
    expect(await report(ndjson, html)).toContain('release r2, 3 host(s) in 3 wave(s)');

    const { page, errors, requests } = await openFile(browser, html);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await expect(page.title()).resolves.toBe('deploy rollout r2');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('deploy rollout r2');
    const facts = (await page.locator('.facts').textContent()) ?? '';
    expect(facts).toContain('3 hosts in 3 waves · ✓ deployed in');
    const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as {
      elapsed_ms: number;
      hosts: { host: string; result: string; steps: Step[] }[];
      receipt: { total: { failed: number; requests: number } };
    };
    expect(facts).toContain(formatMs(result.elapsed_ms));
    for (const [i, h] of result.hosts.entries()) {
      const row = page.locator(`li[data-host="${h.host}"]`);
      await expect(row.getAttribute('data-result')).resolves.toBe('deployed');
      const wave = page.getByRole('region', { name: `Wave ${i + 1}` });
      await expect(wave.locator(`li[data-host="${h.host}"]`).count()).resolves.toBe(1);
      const track = page.getByRole('group', { name: `${h.host}: ${h.steps.length} steps` });
      const box = await track.boundingBox();
      const total = Number(
        (await page.locator('[data-total-ms]').getAttribute('data-total-ms')) ?? 0,
      );
      for (const s of h.steps) {
        const label = `${h.host} ${s.step} ${formatMs(s.duration_ms)}`;
        const bar = track.getByRole('img', { name: label, exact: false }).first();
        await expect(bar.getAttribute('data-offset-ms')).resolves.toBe(String(s.offset_ms));
        await expect(bar.getAttribute('data-duration-ms')).resolves.toBe(String(s.duration_ms));
        // drawn to scale: its left edge and width in pixels, within a pixel and a half
        const b = await bar.boundingBox();
        if (!box || !b) throw new Error(`${label}: not drawn`);
        expect(Math.abs(b.x - box.x - (s.offset_ms / total) * box.width)).toBeLessThan(1.5);
        const width = Math.max(2, (s.duration_ms / total) * box.width);
        expect(Math.abs(b.width - width)).toBeLessThan(1.5);
      }
      const awaits = h.steps.filter((s) => s.bound_ms !== undefined);
      expect(awaits.map((s) => s.step)).toEqual(['await-out', 'await-in']);
      await expect(row.locator('.bound').count()).resolves.toBe(2);
    }
    const receipt = `${result.receipt.total.failed} failed of ${result.receipt.total.requests} requests in all`;
    await expect(page.getByRole('table', { name: 'evidence' }).textContent()).resolves.toContain(
      receipt,
    );
    const shot = path.join(WORK, 'report.png');
    await page.locator('main').screenshot({ path: shot });
    if (process.env.HANDOFF_DOCS_SCREENSHOT === '1')
      await copyFile(shot, path.join(import.meta.dirname, '../../docs/report.png'));
    await page.close();
  });

  it('renders a 500-host rollout within 5 s, each wave a summary row, the failed wave open', async () => {
    const ndjson = path.join(WORK, 'rollout-500.ndjson');
    const html = path.join(WORK, 'report-500.html');
    await writeFile(ndjson, rolloutStream({ hosts: 500, batch: 25, failAt: 487 }));
    await report(ndjson, html);
    const { page, errors, requests, loadMs } = await openFile(browser, html);
    expect(loadMs, `opened in ${Math.round(loadMs)} ms`).toBeLessThan(5_000);
    console.log(`the 500-host report opened in ${Math.round(loadMs)} ms`);
    expect(errors).toEqual([]);
    expect(requests).toEqual([]);
    await expect(page.locator('li.host').count()).resolves.toBe(500);
    await expect(page.locator('section.wave').count()).resolves.toBe(20);
    await expect(page.locator('details[open]').count()).resolves.toBe(1);
    const failed = page.getByRole('region', { name: 'Wave 20' });
    await expect(failed.locator('summary').textContent()).resolves.toContain('✗ 1 rolled-back');
    await expect(failed.locator('li[data-host="web-488"]').isVisible()).resolves.toBe(true);
    await page.screenshot({ path: path.join(WORK, 'report-500.png') });
    await page.close();
  });
});
