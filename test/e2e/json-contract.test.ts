import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { bundlePath } from '../../scripts/build.js';
import { startFleet, type Fleet } from './fleet-harness.js';

const SUBNET = '127.0.41';
/** nothing listens on this address in the lab's subnet: a host that cannot be reached */
const NOWHERE = `${SUBNET}.99`;

let fleet: Fleet;
let unreachableConfig: string;
let badConfig: string;

beforeAll(async () => {
  fleet = await startFleet({ hosts: 2, subnet: SUBNET, workDir: '/tmp/handoff-e2e-41' });
  const doc = parse(await readFile(fleet.configPath, 'utf8')) as { hosts: object[] };
  doc.hosts.push({ name: 'web-9', address: NOWHERE, target: 'web-9' });
  unreachableConfig = path.join(fleet.lab.layout.workDir, 'deploy-unreachable.yml');
  await writeFile(unreachableConfig, stringify(doc));
  badConfig = path.join(fleet.lab.layout.workDir, 'deploy-bad.yml');
  await writeFile(badConfig, 'service: lab\nhosts:\n  - nmae: web-1\n');
});
afterAll(async () => {
  await fleet?.stop();
});

/** the real bundle with the lab's environment, against any deploy.yml */
async function deploy(args: readonly string[], config = fleet.configPath) {
  const r = await execa(process.execPath, [bundlePath, ...args, '-c', config], {
    reject: false,
    timeout: 300_000,
    env: { HANDOFF_WHO: 'e2e', ...fleet.lab.deployEnv() },
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

type Line = Record<string, unknown>;

/** Every stdout line is JSON, exactly one is the result, and it is the last. */
function contract(r: { code: number; stdout: string; stderr: string }): Line {
  const lines = r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Line);
  expect(
    lines.filter((l) => l.event === 'result'),
    r.stdout,
  ).toHaveLength(1);
  const result = lines.at(-1);
  expect(result).toMatchObject({ event: 'result', schema_version: 1, exit_code: r.code });
  expect(result?.ok).toBe(r.code === 0);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return result ?? {};
}

const targetShape = {
  target: expect.any(String) as unknown,
  state: expect.any(String) as unknown,
};

describe('every --json run ends with one result line', () => {
  it('check, with the timeline and invariants', async () => {
    const r = await deploy(['check', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = contract(r);
    expect(result).toHaveProperty('timeline.host_window_ms');
    expect(result).toHaveProperty('settings.interval_ms');
    expect(result.invariants).toContainEqual(expect.objectContaining({ id: 'drain-before-stop' }));
  });

  it('rollout --dry-run, with the same timeline and invariants as check', async () => {
    const check = contract(await deploy(['check', '--json']));
    const r = await deploy(['rollout', '--release', 'r1', '--dry-run', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = contract(r);
    expect(result).toMatchObject({ dry_run: true, plan: [['web-1'], ['web-2']] });
    expect(result.timeline).toEqual(check.timeline);
    expect(result.invariants).toEqual(check.invariants);
  });

  it('verify and status, with one target shape per host', async () => {
    const verify = contract(await deploy(['verify', '--json']));
    const status = contract(await deploy(['status', '--json']));
    for (const result of [verify, status]) {
      const hosts = result.hosts as Line[];
      expect(hosts.map((h) => h.host)).toEqual(['web-1', 'web-2']);
      for (const h of hosts) {
        expect(h).toMatchObject({ reachable: true, target: targetShape });
        expect(h.target).toMatchObject({ in_rotation: true });
      }
    }
  });

  it('rollout, with the same target shape and step durations in *_ms', async () => {
    await fleet.stageEverywhere('r2');
    const r = await deploy(['rollout', '--release', 'r2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const result = contract(r);
    expect(result).toMatchObject({ release: 'r2', not_reached: [] });
    expect(result.elapsed_ms).toEqual(expect.any(Number));
    for (const h of result.hosts as Line[]) {
      expect(h).toMatchObject({ result: 'deployed', left_drained: false, target: targetShape });
      expect(h.steps).toContainEqual(
        expect.objectContaining({ step: 'await-out', duration_ms: expect.any(Number) as unknown }),
      );
    }
  });

  it('a bad config: ok false, exit 2, each problem with code, key path and line', async () => {
    const r = await deploy(['verify', '--json'], badConfig);
    expect(r.code).toBe(2);
    const result = contract(r);
    expect(result.problems).toContainEqual({
      code: 'unknown-key',
      message: "unknown key (did you mean 'name'?)",
      path: 'hosts[0].nmae',
      file: badConfig,
      line: 3,
      column: 5,
    });
  });

  it.each([['status'], ['verify'], ['rollout', '--release', 'r2']])(
    'an unreachable host: %s exits 3 with a result that names it',
    async (...args) => {
      const r = await deploy([...args, '--json'], unreachableConfig);
      expect(r.code, r.stderr).toBe(3);
      const result = contract(r);
      expect(JSON.stringify(result)).toContain('web-9');
    },
  );
});

describe('pipes, bare deploy and --version', () => {
  it('deploy status | head -1 ends without a stack trace', async () => {
    const env = { HANDOFF_WHO: 'e2e', ...fleet.lab.deployEnv() };
    const r = await execa(
      'bash',
      [
        '-c',
        `"$0" "$1" status -c "$2" | head -1; echo "exit \${PIPESTATUS[0]}" >&2`,
        process.execPath,
        bundlePath,
        fleet.configPath,
      ],
      { reject: false, env },
    );
    expect(r.stdout).toMatch(/^web-1: release r\d/);
    expect(r.stderr).toMatch(/^exit 0$/m);
    expect(r.stderr).not.toContain('EPIPE');
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('bare deploy prints the help on stderr and exits 2', async () => {
    const r = await execa(process.execPath, [bundlePath], { reject: false });
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toContain('Usage: deploy');
    expect(String(r.stdout)).toBe('');
  });

  it('--version and -V print the version; --verbose adds the agent bundle’s sha256', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };
    for (const flag of ['--version', '-V']) {
      const r = await execa(process.execPath, [bundlePath, flag]);
      expect(String(r.stdout)).toBe(version);
    }
    const verbose = await execa(process.execPath, [bundlePath, '--version', '--verbose']);
    const agent = await readFile(path.join(path.dirname(bundlePath), 'agent', 'deploy.cjs'));
    const { createHash } = await import('node:crypto');
    const sha = createHash('sha256').update(agent).digest('hex');
    expect(String(verbose.stdout)).toContain(`agent sha256 ${sha}`);
  });
});
