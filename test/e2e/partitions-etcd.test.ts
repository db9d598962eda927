import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { startEtcd, type EtcdCluster } from '../../scripts/lab/etcd.js';
import { formatReport, startLoad, type LabConfigOptions } from '../../scripts/lab/index.js';
import { liveReleases } from './fleet-harness.js';
import {
  expectNothingLost,
  rolloutThroughFault,
  usePartitionLab,
  watchThroughFault,
} from './partition-lab.js';
import { hostOnDisk } from './watch-rollout.js';
import { EtcdLeaseStore } from '../../src/rollout/lease/etcd/etcd-store.js';
import { LAB_SERVICE } from '../../scripts/lab/layout.js';
import { leaseAsk } from '../support/lease-conformance.js';

/**
 * Partitions around the fleet lease on etcd (lease.store: etcd, one member on
 * 127.0.137.50): the hosts cut from etcd, and the orchestrator cut from etcd
 * in the middle of a rollout. Subnet 127.0.137.0/24 only.
 */
const SUBNET = '127.0.137';
const ETCD = `${SUBNET}.50`;

let etcd: EtcdCluster | undefined;
const lab = usePartitionLab(SUBNET, {
  releases: ['r2', 'r3'],
  also: {
    start: async () => {
      etcd = await startEtcd({ addresses: [ETCD], workDir: '/tmp/handoff-e2e-137-etcd' });
    },
    stop: async () => etcd?.stop(),
  },
});
const releases = () => liveReleases((a) => lab.fleet.deploy(a));

/** deploy.yml with the fleet lease on the lab's etcd, published by `deploy setup`. */
async function configure(options?: LabConfigOptions): Promise<void> {
  const endpoint = etcd?.endpoints[0] ?? 'etcd never started';
  const lease = ['lease:', '  store: etcd', '  endpoints:', `    - ${endpoint}`];
  const { fleet } = lab;
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
    const run = await rolloutThroughFault(lab, 'r2', async () => {
      for (const h of lab.fleet.lab.hosts)
        await lab.faults.apply({ kind: 'drop', address: ETCD, peer: h.address });
    });
    expect(run.code, run.log).toBe(0);
    expectNothingLost(run);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);
  }, 150_000);

  it('deploy status shows the holder from etcd, after the hosts', async () => {
    const holder = new EtcdLeaseStore({
      endpoints: etcd?.endpoints ?? [],
      prefix: '/handoff',
      service: LAB_SERVICE,
    });
    expect(await holder.take(leaseAsk('held'))).toMatchObject({ ok: true });
    try {
      const status = await lab.fleet.deploy(['status']);
      expect(status.code, status.stderr).toBe(0);
      const lines = status.stdout.trim().split('\n');
      expect(lines.at(-1)).toMatch(
        new RegExp(
          `^fleet lease: held by deploy rollout r7 by alice@laptop pid \\d+ since .*, heartbeat .* ago \\(etcd /handoff/${LAB_SERVICE}/lease\\)$`,
        ),
      );
    } finally {
      await holder.release(leaseAsk('held'));
      holder.close();
    }
    const free = await lab.fleet.deploy(['status']);
    expect(free.stdout.trim().split('\n').at(-1)).toBe('fleet lease: free');
  }, 60_000);
});

describe('the orchestrator cut from etcd mid-rollout', () => {
  it('the lease is given up within its TTL, the rollout stops before the next wave with no host left drained; one host out at most, 0 failed requests', async () => {
    // a canary wave on web-1, then a long bake: the cut lands while the rollout holds the lease
    await configure({ canary: { hosts: 1, bake: '120s', poll: '1s' } });
    let stoppedMs = 0;
    await watchThroughFault(lab, 'r3', async (run) => {
      await run.stepStarted('web-1', 'overlap');
      await lab.faults.apply({ kind: 'drop', address: ETCD, ports: [2379] });
      const cutAt = Date.now();
      const r = await run.proc;
      stoppedMs = Date.now() - cutAt;
      const log = `${String(r.stderr)}\n${String(r.stdout)}`;
      expect(r.exitCode, log).not.toBe(0);
      expect(log).toContain('lost the fleet lease');
      expect(run.events.find((e) => e.event === 'result')?.ok, log).toBe(false);
    });
    // etcd's TTL is 30 s: unrenewable that long, the lease is said lost before it expires
    expect(stoppedMs).toBeLessThan(45_000);
    for (const h of lab.fleet.lab.hosts)
      expect(await hostOnDisk(lab.fleet, h.name)).toMatchObject({ drained: false, locked: false });
    expect(await releases()).toEqual(['r3', 'r2', 'r2']);
  }, 200_000);

  it('healed: the next rollout waits out the old lease by etcd’s TTL and deploys everywhere', async () => {
    await configure();
    const load = startLoad({ url: lab.fleet.lab.url, concurrency: 6 });
    const r = await lab.fleet.deploy(['rollout', '--release', 'r3', '--wait-lease', '90s']);
    const report = await load.stop();
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    expect(await releases()).toEqual(['r3', 'r3', 'r3']);
  }, 200_000);
});
