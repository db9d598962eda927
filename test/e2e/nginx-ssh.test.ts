import { readFile, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

// Debian's nginx reached over SSH (web-1's sshd; the lab's hosts share /tmp, where its files are)
let fleet: Fleet;
let files: NonNullable<Fleet['lab']['nginx']>;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.186',
    workDir: '/tmp/handoff-e2e-186',
    balancer: 'nginx',
    config: { nginxOverSsh: true },
  });
  if (!fleet.lab.nginx) throw new Error('the lab started no nginx');
  files = fleet.lab.nginx;
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** load through nginx as its clients send it: keep-alive, retrying only a reset idle connection */
const loadThroughNginx = () =>
  startLoad({ url: fleet.lab.url, concurrency: 8, retryIdleReset: true });

describe('a rollout through nginx on its own host, over SSH', () => {
  it("deploy check --live reads nginx's numbers there", async () => {
    const r = await fleet.deploy(['check', '--live']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('deregistration delay 10s ≥ max_request 5s: ok');
  });

  it('reaches the new release with zero failed requests, and leaves no server down', async () => {
    await fleet.stageEverywhere('r2');
    const load = loadThroughNginx();
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    const report = await load.stop();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(report.total).toBeGreaterThan(100);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    expect(await readFile(files.upstream, 'utf8')).not.toContain('down');
  });

  it('stops with one line naming the host, the file as it was, when nginx -t fails there', async () => {
    await fleet.stageEverywhere('r3');
    const before = await readFile(files.upstream, 'utf8');
    await writeFile(files.extra, 'bogus_directive on;\n');
    const load = loadThroughNginx();
    const r = await fleet.deploy(['rollout', '--release', 'r3']);
    const report = await load.stop();
    await writeFile(files.extra, '');
    expect(r.code, r.stderr + r.stdout).toBe(1);
    expect(r.stderr).toMatch(
      /nginx -t failed with \S+ marked down on 127\.0\.186\.\d+, so nginx was not reloaded/,
    );
    expect(await readFile(files.upstream, 'utf8')).toBe(before);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
  });
});
