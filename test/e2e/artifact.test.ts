import {
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { healthBundlePath } from '../../scripts/build.js';
import { SERVICE_FILES, servicesDir } from '../../scripts/lab/services.js';
import type { ReleaseInventory } from '../../src/host/release-inventory.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

let fleet: Fleet;
let work: string;
const live = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** A build's output: the lab's services and the health library, as a release directory. */
async function buildDir(name: string): Promise<string> {
  const dir = path.join(work, name);
  await mkdir(dir, { recursive: true });
  for (const f of SERVICE_FILES) await copyFile(path.join(servicesDir, f), path.join(dir, f));
  await copyFile(healthBundlePath, path.join(dir, 'health.mjs'));
  await writeFile(path.join(dir, 'BUILD'), `${name}\n`);
  return dir;
}

async function tarball(name: string): Promise<string> {
  const dir = await buildDir(name);
  const file = path.join(work, `${name}.tgz`);
  await execa('tar', ['-czf', file, '-C', dir, '.']);
  return file;
}

/** deploy.yml with extra `rollout:` keys, then `deploy setup` so the hosts read the same. */
async function configureRollout(extra: Record<string, unknown>): Promise<void> {
  await fleet.writeConfig();
  const doc = parseDocument(await readFile(fleet.configPath, 'utf8'));
  for (const [k, v] of Object.entries(extra)) doc.setIn(['rollout', k], v);
  await writeFile(fleet.configPath, doc.toString());
  const setup = await fleet.deploy(['setup']);
  expect(setup.code, setup.stderr).toBe(0);
}

type Line = { event?: string; host?: string; fields?: Record<string, unknown> } & Record<
  string,
  unknown
>;
const lines = (stdout: string): Line[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Line);

async function inventories(): Promise<Record<string, ReleaseInventory>> {
  const r = await fleet.deploy(['releases', '--json']);
  expect(r.code, r.stderr).toBe(0);
  const result = lines(r.stdout).find((l) => l.event === 'result') as unknown as {
    hosts: { host: string; inventory: ReleaseInventory }[];
  };
  return Object.fromEntries(result.hosts.map((h) => [h.host, h.inventory]));
}

const ids = (inv: ReleaseInventory | undefined) => inv?.releases.map((r) => r.id) ?? [];

async function lsReleases(host: string): Promise<string[]> {
  const h = fleet.lab.host(host);
  const r = await fleet.lab.ssh(h, [
    'ls',
    '-A',
    path.posix.join(fleet.lab.layout.paths.root, 'releases'),
  ]);
  return r.stdout.trim().split('\n').filter(Boolean).sort();
}

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'handoff-artifact-e2e-'));
  fleet = await startFleet({ hosts: 2, subnet: '127.0.45', workDir: '/tmp/handoff-e2e-45' });
});
afterAll(async () => {
  await fleet?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('deploy rollout --artifact', () => {
  it('ships a tarball at prepare and runs the release from releases/<id>/', async () => {
    const file = await tarball('r2');
    const r = await fleet.deploy(['rollout', '--release', 'r2', '--artifact', file, '--json']);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const events = lines(r.stdout);
    const progress = events.filter((e) => e.event === 'artifact.progress');
    for (const h of fleet.lab.hosts) {
      const mine = progress.filter((e) => e.host === h.name);
      expect(mine.length).toBeGreaterThan(1);
      expect(mine.at(-1)?.fields?.bytes).toBe(mine.at(-1)?.fields?.total);
    }
    // each host's upload ends before that host is drained (the next wave's runs during this one's)
    for (const h of fleet.lab.hosts) {
      const drain = events.findIndex(
        (e) => e.host === h.name && e.event === 'step' && e.fields?.step === 'drain',
      );
      const uploaded = events.findLastIndex(
        (e) => e.host === h.name && e.event === 'artifact.progress',
      );
      expect(drain).toBeGreaterThan(uploaded);
    }
    expect(await live()).toEqual(['r2', 'r2']);
    const res = await fetch(fleet.lab.url);
    expect(res.headers.get('x-release')).toBe('r2');
    for (const h of fleet.lab.hosts) {
      const files = await fleet.lab.ssh(h, [
        'cat',
        path.posix.join(fleet.lab.layout.paths.root, 'releases', 'r2', 'BUILD'),
      ]);
      expect(files.stdout.trim()).toBe('r2');
      // no upload or extraction left behind
      expect((await lsReleases(h.name)).filter((n) => n.startsWith('.'))).toEqual([]);
    }
  });

  it('a second rollout of the same artifact uploads nothing', async () => {
    const r = await fleet.deploy([
      'rollout',
      '--release',
      'r2',
      '--artifact',
      path.join(work, 'r2.tgz'),
      '--json',
    ]);
    expect(r.code, r.stderr + r.stdout).toBe(0);
    const events = lines(r.stdout);
    expect(events.filter((e) => e.event === 'artifact.progress')).toEqual([]);
    const prepares = events.filter((e) => e.event === 'step' && e.fields?.step === 'prepare');
    expect(prepares).toHaveLength(fleet.lab.hosts.length);
    for (const p of prepares) expect(p.message).toContain('artifact present');
  });

  it('a truncated tarball fails at prepare: nothing drained, no half release', async () => {
    const file = await tarball('r3');
    const { size } = await stat(file);
    await truncate(file, Math.floor(size / 2));
    const before = await fetch(fleet.lab.url).then((res) => res.headers.get('x-release'));
    const r = await fleet.deploy(['rollout', '--release', 'r3', '--artifact', file, '--json']);
    expect(r.code).toBe(1);
    const result = lines(r.stdout).at(-1) as { prepare_failed?: string; hosts: unknown[] };
    expect(result.prepare_failed).toMatch(/does not extract/);
    expect(result.hosts).toEqual([]);
    const events = lines(r.stdout);
    expect(events.some((e) => e.event === 'step' && e.fields?.step === 'drain')).toBe(false);
    expect(before).toBe('r2');
    expect(await live()).toEqual(['r2', 'r2']);
    for (const h of fleet.lab.hosts) {
      expect(await lsReleases(h.name)).toEqual(['r1', 'r2']);
    }
  });

  it('refuses a path that is missing or not a tarball with one line, exit 2', async () => {
    const zip = path.join(work, 'build.zip');
    await writeFile(zip, 'PK');
    for (const bad of [zip, path.join(work, 'missing.tgz')]) {
      const r = await fleet.deploy(['rollout', '--release', 'r9', '--artifact', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toContain(bad);
    }
    for (const h of fleet.lab.hosts) expect(await lsReleases(h.name)).toEqual(['r1', 'r2']);
  });
});

describe('deploy releases', () => {
  it('lists each host’s releases, current and previous, and flags one only some hosts have', async () => {
    const [first] = fleet.lab.hosts;
    await fleet.lab.stageRelease(first!, 'hotfix');
    const inv = await inventories();
    const [a, b] = fleet.lab.hosts.map((h) => inv[h.name]);
    expect(a?.current).toBe('r2');
    expect(a?.previous).toBe('r1');
    expect(ids(a).sort()).toEqual(['hotfix', 'r1', 'r2']);
    expect(ids(b).sort()).toEqual(['r1', 'r2']);
    const r2 = a?.releases.find((r) => r.id === 'r2');
    expect(r2?.bytes).toBeGreaterThan(1000);
    // --json prints snake_case
    expect((r2 as unknown as Record<string, unknown>).artifact_sha256).toMatch(/^[0-9a-f]{64}$/);
    const text = await fleet.deploy(['releases']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/hotfix .*\(not on web-2\)/);
    expect(text.stdout).toMatch(/r2 +current/);
  });
});

describe('rollout.keep_releases', () => {
  it('keep_releases: 2 keeps the newest two, current and previous, after a successful rollout', async () => {
    await configureRollout({ keep_releases: 2, artifact: path.join(work, '{release}') });
    // rollout.artifact with {release}: a directory, packed on this machine
    await buildDir('r4');
    await buildDir('r5');
    for (const release of ['r4', 'r5']) {
      const r = await fleet.deploy(['rollout', '--release', release]);
      expect(r.code, r.stderr + r.stdout).toBe(0);
    }
    const inv = await inventories();
    for (const h of fleet.lab.hosts) {
      expect(inv[h.name]?.current).toBe('r5');
      expect(inv[h.name]?.previous).toBe('r4');
      expect(ids(inv[h.name])).toEqual(['r5', 'r4']);
    }
    expect((await fetch(fleet.lab.url)).headers.get('x-release')).toBe('r5');
  });
});
