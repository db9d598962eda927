import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { bundlePath } from '../../scripts/build.js';
import { startLab, type Lab } from '../../scripts/lab/index.js';
import { liveReleases } from './fleet-harness.js';

/**
 * Destinations in a lab of three hosts behind one HAProxy: deploy.yml is
 * production on web-1 and web-2; deploy.staging.yml replaces the host list
 * with web-3 (lists replaced) and merges its rollout keys over production's
 * (maps merged). `-d staging` sets up, rolls out and reports on staging
 * alone, under its own name (lab-staging): its host config and cron entry,
 * and a staging rollout runs while production's holds its fleet lease.
 */
const WORK = '/tmp/handoff-e2e-161';
const config = path.join(WORK, 'deploy.yml');
const staging = path.join(WORK, 'deploy.staging.yml');
let lab: Lab;

const spawnDeploy = (args: readonly string[]): ResultPromise =>
  execa(process.execPath, [bundlePath, ...args, '-c', config], {
    env: { ...lab.deployEnv(), HANDOFF_WHO: 'e2e' },
    reject: false,
  });
const deploy = async (args: readonly string[]) => {
  const r = await spawnDeploy(args);
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
};
const asStaging = (args: readonly string[]) => deploy(['-d', 'staging', ...args]);

beforeAll(async () => {
  await rm(WORK, { recursive: true, force: true });
  lab = await startLab({ handleSignals: false, hosts: 3, subnet: '127.0.161', workDir: WORK });
  const doc = parse(lab.config()) as { hosts: { name: string }[] };
  const web3 = doc.hosts.find((h) => h.name === 'web-3');
  doc.hosts = doc.hosts.filter((h) => h.name !== 'web-3');
  await writeFile(config, stringify(doc, { lineWidth: 0 }));
  await writeFile(
    staging,
    stringify({ hosts: [web3], rollout: { min_healthy: 0, allow_downtime: true } }),
  );
  for (const r of ['r1', 'r2']) await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, r)));
  for (const run of [deploy, asStaging]) {
    const setup = await run(['setup']);
    expect(setup.code, setup.stderr).toBe(0);
    const first = await run(['rollout', '--release', 'r1']);
    expect(first.code, first.stderr).toBe(0);
  }
}, 240_000);
afterAll(async () => {
  await lab?.stop();
});

describe('a staging destination beside production', () => {
  it('is its own deployment on its own hosts: host config, cron entry, status', async () => {
    expect(await liveReleases(deploy)).toEqual(['r1', 'r1']);
    expect(await liveReleases(asStaging)).toEqual(['r1']);
    const files = await lab.inHost('web-3', ['ls', '/etc/handoff']);
    expect(files.stdout.split('\n').filter(Boolean)).toEqual(['lab-staging.json']);
    const cron = await lab.inHost('web-3', ['cat', '/etc/cron.d/handoff-lab-staging']);
    expect(cron.exitCode, cron.stderr).toBe(0);
    const prod = await lab.inHost('web-1', ['ls', '/etc/handoff']);
    expect(prod.stdout.split('\n').filter(Boolean)).toEqual(['lab.json']);
  });

  it('rolls out while production holds its fleet lease, neither waiting for the other', async () => {
    const holder = spawnDeploy(['rollout', '--release', 'r2', '--json']);
    let events = '';
    holder.stdout?.on('data', (chunk: Buffer) => (events += chunk.toString()));
    const deadline = Date.now() + 60_000;
    while (!events.includes('"event":"step"')) {
      if (Date.now() > deadline || holder.exitCode !== null) throw new Error('never: a step');
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await asStaging(['rollout', '--release', 'r2']);
    expect(r.code, r.stderr).toBe(0);
    expect((await holder).exitCode).toBe(0);
    expect(await liveReleases(deploy)).toEqual(['r2', 'r2']);
    expect(await liveReleases(asStaging)).toEqual(['r2']);
  });

  it('check -d staging points a bad value at the staging file’s line', async () => {
    await writeFile(
      staging,
      `hosts:\n  - { name: web-3, address: 127.0.161.13 }\nssh:\n  port: many\n`,
    );
    const r = await asStaging(['check']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`(${staging}:4:9)`);
  });
});
