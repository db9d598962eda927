import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { expectPairServedAndCounted, loadOnEach } from './pair-load.js';

// an HAProxy pair whose second instance (lb-b) is reached over SSH: its admin socket
// through OpenSSH streamlocal forwarding, its config file read there
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.171',
    workDir: '/tmp/handoff-e2e-171',
    pair: true,
    config: { peerOverSsh: true },
  });
});
afterAll(async () => {
  await fleet?.stop();
});

describe('a rollout through an HAProxy pair with one instance over SSH', () => {
  it("deploy check --live reads lb-b's settings from its config over SSH", async () => {
    const r = await fleet.deploy(['check', '--live']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    // lb-b's inter 1.5s fall 3 are in its config file only: read there, they set the bounds
    expect(r.stdout).toMatch(/await-out bound \S+ set by lb-b; await-in bound \S+ set by lb-b/);
    expect(r.stdout).toContain('invariants on lb-b:');
  });

  it('reaches the new release with zero failed requests on each frontend', async () => {
    await fleet.stageEverywhere('r2');
    const stop = loadOnEach(fleet);
    const r = await fleet.deploy(['rollout', '--release', 'r2']);
    const reports = await stop();
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(await liveReleases((args) => fleet.deploy(args))).toEqual(['r2', 'r2', 'r2']);
    // lb-b's counters are read over its SSH connection: the receipt sums both instances
    expectPairServedAndCounted(r.stdout, reports);
  });

  it('names the host and sshd setting when the socket is not there', async () => {
    await fleet.writeConfig({ peerOverSsh: true });
    const lbB = fleet.lab.haproxies[1];
    if (!lbB) throw new Error('no lb-b');
    const { rename } = await import('node:fs/promises');
    await rename(lbB.socket, `${lbB.socket}.away`);
    try {
      const r = await fleet.deploy(['status']);
      expect(r.stderr + r.stdout).toMatch(
        /sshd would not open unix socket \S+admin\.sock .*AllowStreamLocalForwarding/,
      );
    } finally {
      await rename(`${lbB.socket}.away`, lbB.socket);
    }
  });
});
