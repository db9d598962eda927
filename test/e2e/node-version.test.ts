import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from './fleet-harness.js';

const WORK_DIR = '/tmp/handoff-e2e-44';
/** first on web-2's PATH (the lab's pathFirst): empty until a test puts an old `node` in it */
const OLD_NODE_DIR = path.join(WORK_DIR, 'old-node');
const OLD = '20.11.0';

/**
 * A node that says it is Node 20.11.0 when asked its version, and runs the
 * lab's own node for anything else: whatever refuses, refuses on the version.
 */
const wrapper = [
  '#!/bin/sh',
  'case "$*" in',
  `  "-p process.versions.node") echo ${OLD}; exit 0 ;;`,
  `  "--version" | "-v") echo v${OLD}; exit 0 ;;`,
  'esac',
  `exec ${process.execPath} "$@"`,
  '',
].join('\n');

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.44',
    workDir: WORK_DIR,
    pathFirst: { 'web-2': OLD_NODE_DIR },
  });
});
afterAll(async () => {
  await fleet?.stop();
});

/**
 * What setup and a rollout change on a host: the agent, its libraries, the
 * host config and cron line (by sha256), the live release, the releases, the
 * drain marker, the lock holder, the audit's length.
 */
async function footprint(): Promise<string[]> {
  return Promise.all(
    fleet.lab.hosts.map(async (h) => {
      const r = await fleet.lab.inHost(h, [
        'sh',
        '-c',
        [
          'sha256sum /opt/handoff/bin/* /etc/handoff/lab.json /etc/cron.d/*',
          'readlink /srv/handoff/lab/current',
          'ls /srv/handoff/lab/releases',
          'ls /run/handoff/lab/draining /var/lock/handoff/lab.holder.json 2>&1',
          'wc -l < /srv/handoff/lab/audit.jsonl',
          'true',
        ].join('; '),
      ]);
      return `${h.name}:\n${r.stdout.trim()}`;
    }),
  );
}

async function serversUp(): Promise<string[]> {
  return Promise.all(
    fleet.lab.hosts.map(async (h) => `${h.name} ${await fleet.lab.serverStatus(h.name)}`),
  );
}

describe('a host whose node is older than 22.12', () => {
  it('is refused by deploy setup and deploy rollout, naming the host and its version; nothing changes', async () => {
    await mkdir(OLD_NODE_DIR, { recursive: true });
    await writeFile(path.join(OLD_NODE_DIR, 'node'), wrapper);
    await chmod(path.join(OLD_NODE_DIR, 'node'), 0o755);
    // web-2's SSH sessions find it; the others do not
    expect((await fleet.lab.ssh('web-2', ['node', '--version'])).stdout.trim()).toBe(`v${OLD}`);
    expect((await fleet.lab.ssh('web-1', ['node', '--version'])).stdout.trim()).toBe(
      process.version,
    );
    await fleet.stageEverywhere('r2');
    const before = await footprint();
    expect(before.join('\n')).toContain('r1');

    // a deploy.yml whose host config and cron line differ from what the hosts have
    await fleet.writeConfig({ watchdogEveryMs: 20_000 });
    const setup = await fleet.deploy(['setup']);
    expect(setup.code, setup.stderr + setup.stdout).toBe(3);
    const refusal = `web-2: node is ${OLD}, older than 22.12: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user`;
    expect(setup.stdout.split('\n')).toContain(`✗ ${refusal}`);
    expect(setup.stderr).toContain('setup refused, nothing changed on any host');
    expect(`${setup.stdout}${setup.stderr}`).not.toMatch(/web-[13]: node/);
    expect(await footprint()).toEqual(before);

    await fleet.writeConfig();
    const rollout = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(rollout.code, rollout.stderr + rollout.stdout).toBe(3);
    expect(rollout.stderr).toContain(`preflight: ${refusal}`);
    expect(await footprint()).toEqual(before);
    expect(await serversUp()).toEqual(['web-1 UP', 'web-2 UP', 'web-3 UP']);

    // the same fleet with web-2's node the lab's own again: the rollout goes through
    await rm(path.join(OLD_NODE_DIR, 'node'));
    const again = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(again.code, again.stderr + again.stdout).toBe(0);
    expect(await footprint()).not.toEqual(before);
  });
});
