import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdCluster } from '../../scripts/lab/etcd.js';
import { LabFaults } from '../../scripts/lab/faults.js';
import { formatReport, startLoad, type LabConfigOptions } from '../../scripts/lab/index.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';
import { sampleRotation } from './rotation-sampler.js';
import { hostOnDisk, watchRollout } from './watch-rollout.js';

/**
 * Partitions around the fleet lease on etcd (lease.store: etcd, one member on
 * 127.0.137.50): the hosts cut from etcd, and the orchestrator cut from etcd
 * in the middle of a rollout. Subnet 127.0.137.0/24 only.
 */
const SUBNET = '127.0.137';
const ETCD = `${SUBNET}.50`;

let fleet: Fleet;
let faults: LabFaults;
let etcd: EtcdCluster;
beforeAll(async () => {
  faults = await LabFaults.open(SUBNET);
  etcd = await startEtcd({ addresses: [ETCD], workDir: '/tmp/handoff-e2e-137-etcd' });
  fleet = await startFleet({ hosts: 3, subnet: SUBNET, workDir: '/tmp/handoff-e2e-137' });
  await fleet.stageEverywhere('r2');
  await fleet.stageEverywhere('r3');
}, 240_000);
afterAll(async () => {
  await faults?.close();
  await fleet?.stop();
  await etcd?.stop();
});

/** deploy.yml with the fleet lease on the lab's etcd, published by `deploy setup`. */
async function configure(options?: LabConfigOptions): Promise<void> {
  const lease = ['lease:', '  store: etcd', '  endpoints:', `    - ${etcd.endpoints[0]}`];
  await writeFile(
    fleet.configPath,
    `${fleet.lab.config(options).trimEnd()}\n${lease.join('\n')}\n`,
  );
  const setup = await fleet.deploy(['setup']);
  if (setup.code !== 0) throw new Error(`deploy setup failed (${setup.code}): ${setup.stderr}`);
}

describe('the hosts cut from etcd (etcd reachable from the orchestrator only)', () => {
  it('changes nothing: the agent never speaks to etcd; the rollout deploys under load, 0 failed requests', async () => {
    await configure();
    for (const h of fleet.lab.hosts)
      await faults.apply({ kind: 'drop', address: ETCD, peer: h.address });
    const rotation = sampleRotation(fleet.lab);
    let run: Awaited<ReturnType<typeof rolloutUnderLoad>>;
    try {
      run = await rolloutUnderLoad(fleet, 'r2');
    } finally {
      await faults.heal();
    }
    const seen = await rotation.stop();
    expect(run.code, run.log).toBe(0);
    expect(run.report.failed, formatReport(run.report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen.worst)).toBeLessThanOrEqual(1);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2', 'r2']);
  }, 150_000);
});

describe('the orchestrator cut from etcd mid-rollout', () => {
  it('the lease is given up within its TTL, the rollout stops before the next wave with no host left drained; one host out at most, 0 failed requests', async () => {
    // a canary wave on web-1, then a long bake: the cut lands while the rollout holds the lease
    await configure({ canary: { hosts: 1, bake: '120s', poll: '1s' } });
    const rotation = sampleRotation(fleet.lab);
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const run = watchRollout(fleet, 'r3');
    let stoppedMs = 0;
    try {
      await run.stepStarted('web-1', 'overlap');
      await faults.apply({ kind: 'drop', address: ETCD, ports: [2379] });
      const cutAt = Date.now();
      const r = await run.proc;
      stoppedMs = Date.now() - cutAt;
      const log = `${String(r.stderr)}\n${String(r.stdout)}`;
      expect(r.exitCode, log).not.toBe(0);
      expect(log).toContain('lost the fleet lease');
      expect(run.events.find((e) => e.event === 'result')?.ok, log).toBe(false);
    } finally {
      await faults.heal();
      run.proc.kill('SIGKILL');
      await run.proc;
    }
    const report = await load.stop();
    const seen = await rotation.stop();
    expect(report.failed, formatReport(report)).toBe(0);
    expect(seen.maxOut, JSON.stringify(seen.worst)).toBeLessThanOrEqual(1);
    // etcd's TTL is 30 s: unrenewable that long, the lease is said lost before it expires
    expect(stoppedMs).toBeLessThan(45_000);
    for (const h of fleet.lab.hosts)
      expect(await hostOnDisk(fleet, h.name)).toMatchObject({ drained: false, locked: false });
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r3', 'r2', 'r2']);
  }, 200_000);

  it('healed: the next rollout waits out the old lease by etcd’s TTL and deploys everywhere', async () => {
    await configure();
    const load = startLoad({ url: fleet.lab.url, concurrency: 6 });
    const r = await fleet.deploy(['rollout', '--release', 'r3', '--wait-lease', '90s']);
    const report = await load.stop();
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r3', 'r3', 'r3']);
  }, 200_000);
});
