import { readFile, rename } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { mountNamespaceOf, type LabHaproxy } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { expectPairServedAndCounted, loadOnEach } from './pair-load.js';

// an HAProxy pair whose second instance (lb-b) runs on a lab host of its own (127.0.171.101:
// its own sshd and namespaces), reached over SSH: its admin socket through OpenSSH
// stream-local forwarding, its config file read there
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

const lbB = (): LabHaproxy & { host: NonNullable<LabHaproxy['host']> } => {
  const h = fleet.lab.haproxies[1];
  if (!h?.host) throw new Error('no lb-b on a host of its own');
  return { ...h, host: h.host };
};

describe('a rollout through an HAProxy pair with one instance over SSH', () => {
  it('runs lb-b on a host of its own, which deploy.yml names with the paths there', async () => {
    const b = lbB();
    const { host } = b;
    expect([host.name, host.address]).toEqual(['lb-b', '127.0.171.101']);
    const doc = parse(await readFile(fleet.configPath, 'utf8')) as {
      balancers: Record<string, unknown>[];
    };
    expect(doc.balancers[1]).toMatchObject({
      name: 'lb-b',
      ssh: '127.0.171.101',
      socket: '/run/haproxy/admin.sock',
      config: '/etc/haproxy/haproxy.cfg',
    });
    // its own sshd, its key in the lab's known_hosts, checked strictly (lab.ssh)
    const known = await readFile(fleet.lab.knownHosts, 'utf8');
    expect(known).toMatch(/^127\.0\.171\.101 ssh-ed25519 /m);
    const there = await fleet.lab.ssh(host, ['sh', '-c', 'hostname; cat /etc/haproxy/haproxy.cfg']);
    expect(there.exitCode, there.stderr).toBe(0);
    expect(there.stdout.split('\n')[0]).toBe('lb-b');
    expect(there.stdout).toContain('stats socket /run/haproxy/admin.sock mode 600 level admin');
    expect(there.stdout).toContain('bind 127.0.171.101:8080');
    // lb-b's HAProxy runs in that host's namespaces, not this machine's
    const pid = Number(/^Pid: (\d+)$/m.exec(await b.haproxy('show info'))?.[1]);
    expect(mountNamespaceOf(pid)).toBe(host.mountNamespace);
    expect(mountNamespaceOf(pid)).not.toBe(mountNamespaceOf('self'));
    // this machine's /etc/haproxy/haproxy.cfg (Debian's, if any) is not lb-b's: only lb-b has it
    const here = await readFile('/etc/haproxy/haproxy.cfg', 'utf8').catch(() => '');
    expect(here).not.toContain('bind 127.0.171.101:8080');
  });

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
    // lb-b's /run/haproxy/admin.sock, as the lab reaches it
    const { socket } = lbB();
    await rename(socket, `${socket}.away`);
    try {
      const r = await fleet.deploy(['status']);
      expect(r.stderr + r.stdout).toMatch(
        /127\.0\.171\.101.*sshd would not open unix socket \/run\/haproxy\/admin\.sock .*AllowStreamLocalForwarding/,
      );
    } finally {
      await rename(`${socket}.away`, socket);
    }
  });
});
