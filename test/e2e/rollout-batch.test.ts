import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { pinBundle, type Pinned } from './pinned-bundle.js';

let fleet: Fleet;
let pinned: Pinned;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 4,
    subnet: '127.0.13',
    workDir: '/tmp/handoff-e2e-13',
    config: { batch: 2, minHealthy: 2 },
  });
  pinned = await pinBundle(fleet);
});
afterAll(async () => {
  await fleet?.stop();
});

/** HAProxy's view every ~100 ms: how many servers are out of rotation at each sample. */
function sampleOutOfRotation() {
  const samples: { at: number; out: string[] }[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await fleet.lab.showStat();
      const servers = rows.filter(
        (r) => r.pxname === fleet.lab.backend && r.svname !== 'BACKEND' && r.svname !== 'FRONTEND',
      );
      // `UP 1/2` is still routed to; `DOWN`, `DOWN 1/2` (rising), `MAINT`, `NOLB` are not
      const out = servers.filter((r) => !r.status?.startsWith('UP')).map((r) => r.svname ?? '?');
      samples.push({ at: Date.now(), out });
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

const releases = (): Promise<string[]> => liveReleases((args) => pinned.deploy(args));

describe('deploy rollout --batch 2 on four hosts with min_healthy 2', () => {
  it('never has more than two targets out of rotation, reaches every host, and loses no request', async () => {
    await fleet.stageEverywhere('r2');
    const sampler = sampleOutOfRotation();
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const r = await pinned.deploy(['rollout', '--release', 'r2', '--batch', '2']);
    const report = await load.stop();
    const samples = await sampler.stop();
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(r.stdout).toContain('wave 1: web-1, web-2');
    expect(r.stdout).toContain('wave 2: web-3, web-4');
    expect(report.failed, formatReport(report)).toBe(0);
    expect(report.releases).toHaveProperty('r2');
    expect(await releases()).toEqual(['r2', 'r2', 'r2', 'r2']);

    expect(samples.length).toBeGreaterThan(50);
    const most = Math.max(...samples.map((s) => s.out.length));
    const worst = samples.find((s) => s.out.length === most);
    expect(most, `out at once: ${worst?.out.join(', ')}`).toBe(2);
    // the batch really drained in pairs, a wave at a time, never across waves
    const outSets = new Set(samples.filter((s) => s.out.length === 2).map((s) => s.out.join(',')));
    expect([...outSets].sort()).toEqual(['web-1,web-2', 'web-3,web-4']);
  });
});
