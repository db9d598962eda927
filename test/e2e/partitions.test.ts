import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LabFaults } from '../../scripts/lab/faults.js';
import { liveReleases, rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';

/**
 * Real partitions on the lab's loopback addresses (scripts/lab/faults.ts):
 * iptables rules of this file's subnet only, 127.0.135.0/24.
 */
const SUBNET = '127.0.135';

let fleet: Fleet;
let faults: LabFaults;
beforeAll(async () => {
  faults = await LabFaults.open(SUBNET);
  fleet = await startFleet({ hosts: 3, subnet: SUBNET, workDir: '/tmp/handoff-e2e-135' });
  await fleet.stageEverywhere('r2');
  await fleet.stageEverywhere('r3');
}, 240_000);
afterAll(async () => {
  await faults?.close();
  await fleet?.stop();
});

/** web-3's SSH cut from everyone: it keeps serving through HAProxy, the orchestrator cannot reach it */
async function cutSsh(): Promise<void> {
  const web3 = fleet.lab.host('web-3');
  await faults.apply({ kind: 'drop', address: web3.address, ports: [web3.sshPort] });
}

describe('a host partitioned from the orchestrator', () => {
  it('with rollout.unreachable fail (the default): exit 3 naming it, nothing changed', async () => {
    await cutSsh();
    try {
      const r = await fleet.deploy(['rollout', '--release', 'r2']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /preflight: web-3: no SSH handshake with 127\.0\.135\.\d+:\d+ within 5s/,
      );
    } finally {
      await faults.heal();
    }
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r1', 'r1', 'r1']);
  }, 120_000);

  it('with skip: the others deploy under load with zero failed requests, it is named, exit 4', async () => {
    // deploy.yml's rollout block is part of the host config: set up while every host answers
    await fleet.configure({ skipUnreachable: 1 });
    await cutSsh();
    let run: Awaited<ReturnType<typeof rolloutUnderLoad>>;
    try {
      run = await rolloutUnderLoad(fleet, 'r2');
    } finally {
      await faults.heal();
    }
    expect(run.code, run.log).toBe(4);
    expect(run.report.failed, JSON.stringify(run.report)).toBe(0);
    const result = run.result as unknown as {
      hosts: { host: string; result: string }[];
      skipped: { host: string; reason: string }[];
      exit_code: number;
    };
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([
      ['web-1', 'deployed'],
      ['web-2', 'deployed'],
    ]);
    expect(result.skipped.map((s) => s.host)).toEqual(['web-3']);
    expect(run.stderr).toContain(
      'deploy: deployed r2, 1 host skipped (unreachable, not on r2): web-3',
    );
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2', 'r1']);
  }, 150_000);

  it('healed: the next rollout deploys it with the rest, exit 0', async () => {
    const run = await rolloutUnderLoad(fleet, 'r3');
    expect(run.code, run.log).toBe(0);
    expect(run.report.failed, JSON.stringify(run.report)).toBe(0);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r3', 'r3', 'r3']);
  }, 150_000);
});
