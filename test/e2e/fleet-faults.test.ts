import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { labFiles, nsenterArgv } from '../../scripts/lab/index.js';
import { startFleet, type DeployRun, type Fleet } from './fleet-harness.js';
import { pinBundle, type Pinned } from './pinned-bundle.js';

const AGENT = '/opt/handoff/bin/deploy';

let fleet: Fleet;
let pinned: Pinned;
let scratch: string;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.15', workDir: '/tmp/handoff-e2e-15' });
  pinned = await pinBundle(fleet);
  scratch = await mkdtemp(path.join(tmpdir(), 'handoff-fleet-faults-'));
});
afterAll(async () => {
  await fleet?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** A deploy.yml for the lab that trusts `knownHosts` instead of the lab's file. */
async function configTrusting(name: string, knownHosts: string): Promise<string> {
  const file = path.join(scratch, name);
  await writeFile(path.join(scratch, `${name}.known_hosts`), knownHosts);
  const yml = fleet.lab
    .config()
    .replace(
      `known_hosts: ${fleet.lab.knownHosts}`,
      `known_hosts: ${path.join(scratch, `${name}.known_hosts`)}`,
    );
  expect(yml).toContain(scratch);
  await writeFile(file, yml);
  return file;
}

async function hostKey(name: string): Promise<{ line: string; fingerprint: string }> {
  const pub = path.join(
    labFiles(fleet.lab.layout.workDir).hostDir(name),
    'ssh_host_ed25519_key.pub',
  );
  const [type, key] = (await readFile(pub, 'utf8')).trim().split(' ');
  const listed = await execa('ssh-keygen', ['-lf', pub]);
  const fingerprint = String(listed.stdout).split(' ')[1] ?? '?';
  return { line: `${fleet.lab.host(name).address} ${type} ${key}`, fingerprint };
}

/** What a deploy changes on a host: the live release, the drain marker, the lock holder. */
async function footprint(): Promise<string[]> {
  return Promise.all(
    fleet.lab.hosts.map(async (h) => {
      const r = await fleet.lab.inHost(h, [
        'sh',
        '-c',
        'readlink /srv/handoff/lab/current; ls /run/handoff/lab/draining 2>/dev/null; ls /var/lock/handoff/lab.lock 2>/dev/null; true',
      ]);
      return `${h.name}: ${r.stdout.trim().split('\n').join(' ')}`;
    }),
  );
}

const errorLines = (r: DeployRun) => r.stderr.split('\n').filter((l) => l.startsWith('deploy: '));

describe('host keys', () => {
  it('refuses a host missing from known_hosts with its SHA256 fingerprint and the line to add', async () => {
    const lab = await readFile(fleet.lab.knownHosts, 'utf8');
    const web2 = await hostKey('web-2');
    const without = lab
      .split('\n')
      .filter((l) => l !== web2.line)
      .join('\n');
    expect(without).not.toContain(web2.line);
    const config = await configTrusting('missing.yml', without);
    const r = await pinned.deploy(['verify'], { config });
    expect(r.code, r.stderr).toBe(3);
    const all = `${r.stderr}\n${r.stdout}`;
    expect(all).toContain('web-2');
    expect(all).toContain(web2.fingerprint);
    expect(all).toContain(web2.line);
    expect(all).not.toMatch(/^\s+at /m);
  });

  it('refuses a host whose key changed with the offered SHA256 fingerprint and the line to add', async () => {
    const lab = await readFile(fleet.lab.knownHosts, 'utf8');
    const web1 = await hostKey('web-1');
    const web2 = await hostKey('web-2');
    // web-2's address listed with web-1's key: what a rebuilt host (or an impostor) looks like
    const impostor = web1.line.replace(
      fleet.lab.host('web-1').address,
      fleet.lab.host('web-2').address,
    );
    const changed = lab.replace(web2.line, impostor);
    expect(changed).toContain(impostor);
    const config = await configTrusting('changed.yml', changed);
    const r = await pinned.deploy(['verify'], { config });
    expect(r.code, r.stderr).toBe(3);
    const all = `${r.stderr}\n${r.stdout}`;
    expect(all).toContain('CHANGED');
    expect(all).toContain(web2.fingerprint);
    expect(all).toContain(web2.line);
  });
});

describe('hosts without a working agent', () => {
  it('a host without the agent stops a rollout with one line saying to run deploy setup, exit 3, nothing changed', async () => {
    await fleet.stageEverywhere('r2');
    const before = await footprint();
    await fleet.lab.inHost('web-2', ['mv', AGENT, `${AGENT}.moved`]);
    try {
      const r = await pinned.deploy(['rollout', '--release', 'r2']);
      expect(r.code, r.stderr).toBe(3);
      const lines = errorLines(r);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain('web-2');
      expect(lines[0]).toContain("run 'deploy setup --hosts web-2'");
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(await footprint()).toEqual(before);
    } finally {
      await fleet.lab.inHost('web-2', ['mv', `${AGENT}.moved`, AGENT]);
    }
  });

  it('a host with another build of the agent refuses before anything runs: one line, exit 3', async () => {
    const before = await footprint();
    await fleet.lab.inHost('web-2', ['cp', AGENT, `${AGENT}.moved`]);
    // the same program, another checksum: what a host set up by another version looks like
    await fleet.lab.inHost('web-2', ['sh', '-c', `echo '// another build' >> ${AGENT}`]);
    try {
      for (const command of [['verify'], ['drain', 'web-2']]) {
        const r = await pinned.deploy(command);
        expect(r.code, r.stderr).toBe(3);
        const lines = errorLines(r);
        expect(lines, r.stderr).toHaveLength(1);
        expect(lines[0]).toMatch(/web-2: agent \S+ \([0-9a-f]{12}\) differs from this deploy's/);
        expect(lines[0]).toContain("run 'deploy setup --hosts web-2'");
      }
      expect(await footprint()).toEqual(before);
    } finally {
      await fleet.lab.inHost('web-2', ['mv', `${AGENT}.moved`, AGENT]);
    }
  });

  it('a host whose agent answers garbage stops a rollout with one clear line, exit 3, nothing changed', async () => {
    await fleet.stageEverywhere('r2');
    const before = await footprint();
    await fleet.lab.inHost('web-3', ['mv', AGENT, `${AGENT}.moved`]);
    await fleet.lab.inHost('web-3', [
      'sh',
      '-c',
      `printf '#!/bin/sh\\necho "hello, I am not an agent"\\necho "{not json"\\n' > ${AGENT} && chmod 755 ${AGENT}`,
    ]);
    try {
      const r = await pinned.deploy(['rollout', '--release', 'r2']);
      expect(r.code, r.stderr).toBe(3);
      const lines = errorLines(r);
      expect(lines, r.stderr).toHaveLength(1);
      expect(lines[0]).toContain('web-3');
      expect(lines[0]).toContain('no handoff protocol result');
      expect(r.stderr).not.toMatch(/^\s+at /m);
      expect(await footprint()).toEqual(before);
    } finally {
      await fleet.lab.inHost('web-3', ['mv', `${AGENT}.moved`, AGENT]);
    }
  });
});

describe('a host config edited by hand', () => {
  const HOST_CONFIG = '/etc/handoff/lab.json';
  const edit = (overlap: string) =>
    `const f = ${JSON.stringify(HOST_CONFIG)}, fs = require('fs'); const d = JSON.parse(fs.readFileSync(f, 'utf8')); d.drain.overlap = ${JSON.stringify(overlap)}; fs.writeFileSync(f, JSON.stringify(d, null, 2));`;

  it('is validated in full by the agent on the host: a bad edit is one located line, exit 2', async () => {
    await fleet.lab.inHost('web-1', ['cp', HOST_CONFIG, `${HOST_CONFIG}.saved`]);
    try {
      // the seal no longer holds: the agent loads the YAML parser and the schema from its
      // library files, which setup installed beside it
      await fleet.lab.inHost('web-1', [process.execPath, '-e', edit('soon')]);
      const bad = await fleet.lab.inHost('web-1', [AGENT, 'watchdog', '-c', HOST_CONFIG]);
      expect(bad.exitCode, bad.stderr).toBe(2);
      expect(bad.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(/^deploy: drain\.overlap: .*\(\/etc\/handoff\/lab\.json:\d+:\d+\)$/),
      ]);
      await fleet.lab.inHost('web-1', [process.execPath, '-e', edit('3s')]);
      const good = await fleet.lab.inHost('web-1', [AGENT, 'host', 'status', '-c', HOST_CONFIG]);
      expect(good.exitCode, good.stderr).toBe(0);
    } finally {
      await fleet.lab.inHost('web-1', ['mv', `${HOST_CONFIG}.saved`, HOST_CONFIG]);
    }
  });
});

describe('the watchdog', () => {
  it('on a read-only host.state prints one ERROR line and exits 1, without a stack trace', async () => {
    const web1 = fleet.lab.host('web-1');
    // a private mount namespace inside web-1: the read-only state is seen by this tick alone
    // a read-only bind of the real state, not an empty tmpfs: the heartbeat marks stay visible,
    // so the only fault this tick meets is that it cannot write
    const script =
      'mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && exec "$2" watchdog -c "$3"';
    const [cmd, ...args] = nsenterArgv(web1, [
      'unshare',
      '-m',
      '--propagation',
      'private',
      '--',
      'sh',
      '-c',
      script,
      'sh',
      '/run/handoff/lab',
      AGENT,
      '/etc/handoff/lab.json',
    ]);
    const r = await execa(cmd as string, args, { reject: false, timeout: 60_000 });
    const stderr = String(r.stderr);
    expect(r.exitCode, stderr).toBe(1);
    const errors = stderr.split('\n').filter((l) => /^(ERROR|WARN|deploy:) /.test(l));
    expect(errors, stderr).toHaveLength(1);
    expect(errors[0]).toContain('/run/handoff/lab');
    expect(errors[0]).toContain('read-only');
    expect(stderr).not.toMatch(/^\s+at |internal error/m);
  });
});

describe('an unreachable host', () => {
  // last: the host's sshd stays down
  it('deploy verify exits 3 naming the host whose sshd is stopped', async () => {
    const web3 = fleet.lab.host('web-3');
    process.kill(web3.pid, 'SIGTERM');
    const r = await pinned.deploy(['verify']);
    expect(r.code, r.stderr).toBe(3);
    const lines = errorLines(r);
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^deploy: cannot verify web-3: \S/);
    expect(r.stdout).toContain('web-3');
  });
});
