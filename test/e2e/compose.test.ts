import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { composeEnv, composeFiles, composeLabProblem, LAB_IMAGE } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { rolloutWatched, startWatchdogs, watchdogActions } from './watchdogs.js';

/*
 * runtime.kind compose with real containers: Podman on every lab host
 * (docs/lab.md, compose mode), the compose file published with each release.
 */
const workDir = '/tmp/handoff-e2e-19';
const problem = await composeLabProblem(workDir);
if (problem)
  console.error(
    `\n!!! SKIPPING the compose e2e tests: Podman cannot start containers here: ${problem}\n`,
  );

let fleet: Fleet;
beforeAll(async () => {
  if (problem) return;
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.19',
    workDir,
    runtime: 'compose',
    release: null,
  });
  await fleet.lab.tagImage('r1');
  await fleet.stageEverywhere('r1');
  const first = await fleet.deploy(['rollout', '--release', 'r1']);
  expect(first.code, `${first.stderr}\n${first.stdout}`).toBe(0);
}, 300_000);
afterAll(async () => {
  await fleet?.stop();
});

const sha256 = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** `service image state` of every container of the project on a host */
async function containers(host: string): Promise<string[]> {
  const r = await fleet.lab.podman(host, [
    'ps',
    '--all',
    '--format',
    '{{index .Labels "com.docker.compose.service"}} {{.Image}} {{.State}}',
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  // Podman 4.3 prints the state as `Up 3 seconds ago`, `Exited (137) 2 seconds ago`
  return r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.replace(/ Up .*$/, ' running').replace(/ Exited \((\d+)\).*$/, ' exited-$1'))
    .sort();
}

describe.skipIf(problem !== undefined)('the compose runtime with real containers', () => {
  it('rolls out under keep-alive load with zero failed requests: the compose file arrives byte for byte, the old containers go, the new image runs', async () => {
    await fleet.lab.tagImage('r2');
    await fleet.stageEverywhere('r2');
    // the watchdog ticks through the rollout and never acts
    await rolloutWatched(fleet, 'r2', (h) => composeEnv(fleet.lab.layout, h));
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    const sent = await readFile(composeFiles(workDir).composeFile);
    for (const h of fleet.lab.hosts) {
      // hashed on the host itself: byte for byte, trailing newline and all
      const published = await fleet.lab.inHost(h, [
        'sha256sum',
        path.posix.join(fleet.lab.layout.paths.root, 'releases/r2/compose.yml'),
      ]);
      expect(published.exitCode).toBe(0);
      expect(published.stdout.split(' ')[0]).toBe(sha256(sent));
      expect(await containers(h.name)).toEqual([
        `app ${LAB_IMAGE}:r2 running`,
        `worker ${LAB_IMAGE}:r2 running`,
      ]);
    }
    const status = await fleet.deploy(['status']);
    expect(status.stdout).toContain('release r2 compose.yml sha256');
  }, 300_000);

  it('restarts a killed container after the configured failures', async () => {
    const host = fleet.lab.hosts[0]!;
    const watchdogs = startWatchdogs([host], { env: (h) => composeEnv(fleet.lab.layout, h) });
    const killed = await fleet.lab.podman(host, ['kill', 'lab_app_1']);
    expect(killed.exitCode, killed.stderr).toBe(0);
    await fleet.lab.waitForStatus(host.name, (s) => s.startsWith('DOWN'), 20_000);
    await fleet.lab.waitForStatus(host.name, (s) => s === 'UP', 60_000);
    const outputs = await watchdogs.stop();
    const actions = await watchdogActions(fleet.lab, outputs);
    expect(actions.join('\n')).toMatch(/restart/);
    expect(await containers(host.name)).toContain(`app ${LAB_IMAGE}:r2 running`);
  }, 120_000);

  it('deploy verify names a stopped container by its service', async () => {
    const host = fleet.lab.hosts[1]!;
    const stopped = await fleet.lab.podman(host, ['stop', '--time', '2', 'lab_worker_1']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    // its heartbeat marks go stale within max_age: verify fails as soon as they have
    const r = await vi.waitFor(
      async () => {
        const v = await fleet.deploy(['verify', '--hosts', host.name]);
        if (v.code === 0) throw new Error('verify still passes');
        return v;
      },
      { timeout: 20_000, interval: 500 },
    );
    expect(r.code).toBe(1);
    // the verify table: host, service, ✗ and why (its marks stopped: stale-marks)
    expect(`${r.stdout}\n${r.stderr}`).toMatch(
      new RegExp(`${host.name}\\s+worker\\s+✗.*stale-marks`),
    );
    const started = await fleet.lab.podman(host, ['start', 'lab_worker_1']);
    expect(started.exitCode, started.stderr).toBe(0);
  }, 60_000);

  it('fails at prepare on the first host when the image does not exist: nothing drained, exit 1, one line naming the image', async () => {
    await fleet.stageEverywhere('r3');
    const r = await fleet.deploy(['rollout', '--release', 'r3']);
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(1);
    expect(r.stderr).toContain(`image ${LAB_IMAGE}:r3 cannot be pulled and is not on this host`);
    expect(r.stderr).not.toMatch(/\bdrain(ed|ing)? web-/);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
    for (const h of fleet.lab.hosts) expect(await fleet.lab.serverStatus(h.name)).toBe('UP');
  }, 120_000);

  it('names a container that needed SIGKILL at its stop: in the rollout, deploy status and deploy check --live', async () => {
    const host = fleet.lab.hosts[2]!;
    await fleet.lab.tagImage('r4');
    await fleet.lab.tagImage('r5');
    await fleet.lab.stageRelease(host, 'r4', { ignoreSigterm: true });
    await fleet.lab.stageRelease(host, 'r5');
    const ignoring = await fleet.deploy(['rollout', '--release', 'r4', '--hosts', host.name]);
    expect(ignoring.code, `${ignoring.stderr}\n${ignoring.stdout}`).toBe(0);
    expect(`${ignoring.stdout}${ignoring.stderr}`).toMatch(/pull: /);
    // r4's app ignores SIGTERM: compose stop -t <stop_timeout> ends it with SIGKILL
    const next = await fleet.deploy(['rollout', '--release', 'r5', '--hosts', host.name]);
    expect(next.code, `${next.stderr}\n${next.stdout}`).toBe(0);
    const said = `${next.stdout}${next.stderr}`;
    expect(said).toMatch(
      new RegExp(`${host.name}.*app needed SIGKILL: it did not exit within drain.stop_timeout`),
    );
    expect(said).not.toMatch(/worker needed SIGKILL/);
    const status = await fleet.deploy(['status', '--hosts', host.name]);
    expect(status.stdout).toMatch(/last stop \(r4, [^)]+\): app needed SIGKILL/);
    const check = await fleet.deploy(['check', '--live']);
    expect(check.code, check.stderr).toBe(0);
    expect(check.stdout).toContain(`WARN ${host.name}: app needed SIGKILL at the last stop (r4,`);
    const strict = await fleet.deploy(['check', '--live', '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('stop-needed-sigkill');
    // two rollouts of real containers, one waiting out stop_timeout: 124 s on a quiet 2-core
    // machine, over 180 s on a busy one; the first test's one rollout of three hosts has 300 s
  }, 300_000);
});
