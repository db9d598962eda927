import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from '../../scripts/lab/delay-proxy.js';
import { liveReleases } from './fleet-harness.js';
import { expectNothingLost, rolloutThroughFault, usePartitionLab } from './partition-lab.js';

/**
 * A bad network on every SSH session: 5 % of its packets dropped (iptables'
 * statistic match, scripts/lab/faults.ts) and 300 ms added to each round trip
 * (150 ms each way through scripts/lab/delay-proxy.ts: this kernel has no
 * netem). Subnet 127.0.138.0/24 only.
 */
const SUBNET = '127.0.138';
const PROXY_PORT = 2222;

let proxies: DelayProxy[] = [];
const lab = usePartitionLab(SUBNET, {
  releases: ['r2'],
  also: { stop: async () => void (await Promise.all(proxies.map((p) => p.close()))) },
});

/** deploy.yml reaching every host through its delay proxy: ssh.port and known_hosts moved there. */
async function throughProxies(): Promise<void> {
  const { fleet } = lab;
  proxies = await Promise.all(
    fleet.lab.hosts.map((h) =>
      startDelayProxy({
        listen: { address: h.address, port: PROXY_PORT },
        target: { address: h.address, port: h.sshPort },
        delayMs: 150,
      }),
    ),
  );
  const known = path.join(path.dirname(fleet.configPath), 'known_hosts.proxied');
  const lines = (await readFile(fleet.lab.knownHosts, 'utf8')).trim().split('\n');
  await writeFile(known, lines.map((l) => l.replace(/^(\S+) /, `[$1]:${PROXY_PORT} `)).join('\n'));
  const yml = fleet.lab
    .config()
    .replace(/^ {2}port: 22$/m, `  port: ${PROXY_PORT}`)
    .replace(`known_hosts: ${fleet.lab.knownHosts}`, `known_hosts: ${known}`);
  expect(yml).toContain(`port: ${PROXY_PORT}`);
  expect(yml).toContain(known);
  await writeFile(fleet.configPath, yml);
  const setup = await fleet.deploy(['setup']);
  if (setup.code !== 0) throw new Error(`deploy setup failed (${setup.code}): ${setup.stderr}`);
}

describe('5 % loss and 300 ms latency on every SSH session', () => {
  it('the rollout deploys under load: one host out at most, 0 failed requests', async () => {
    await throughProxies();
    const run = await rolloutThroughFault(lab, 'r2', async () => {
      for (const h of lab.fleet.lab.hosts)
        await lab.faults.apply({
          kind: 'loss',
          address: h.address,
          ports: [h.sshPort],
          probability: 0.05,
        });
    });
    expect(run.code, run.log).toBe(0);
    expectNothingLost(run);
    expect(await liveReleases((a) => lab.fleet.deploy(a))).toEqual(['r2', 'r2', 'r2']);
  }, 240_000);
});
