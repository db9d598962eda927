import { copyFile, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { bundlePath, root } from '../../scripts/build.js';
import { labFiles, startLab, type Lab } from '../../scripts/lab/index.js';
import { liveReleases } from './fleet-harness.js';

/**
 * The GitHub Action (action.yml → action/main.mjs) run as the runner runs
 * it: node on the entry, the inputs as INPUT_* variables, GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, RUNNER_TEMP and GITHUB_ACTIONS=true, a HOME of its
 * own. `package` is the packed tarball, installed offline. deploy.yml names
 * no identity_file and no known_hosts: the key reaches the hosts only through
 * the ssh-agent the action starts, their keys only through its known-hosts.
 * Ends with a cancel: the runner's SIGINT while the action queues for the
 * fleet lease is a clean stop, exit 3, `result=cancelled`, nothing changed.
 */
const WORK = '/tmp/handoff-e2e-160';
const HOME = path.join(WORK, 'home');
const config = path.join(WORK, 'deploy.yml');
const entry = path.join(root, 'action', 'main.mjs');
let lab: Lab;
let tarball: string;
let key: string;
let knownHosts: string;
/** the test's own agent, for setup and for the rollout that holds the lease */
let testAgent: { socket: string; pid: number };

const baseEnv = (): Record<string, string> => ({
  ...lab.deployEnv(),
  HANDOFF_WHO: 'e2e',
  HOME,
  PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
  npm_config_offline: 'true',
});

/** deploy from the repository's bundle, through the test's agent */
const deploy = async (args: readonly string[]) => {
  const r = await execa(process.execPath, [bundlePath, ...args, '-c', config], {
    env: { ...baseEnv(), SSH_AUTH_SOCK: testAgent.socket },
    extendEnv: false,
    reject: false,
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
};

interface ActionRun {
  readonly dir: string;
  readonly proc: ResultPromise;
}

/** the action's entry with these inputs, in a fresh runner directory */
async function startAction(name: string, inputs: Record<string, string>): Promise<ActionRun> {
  const dir = path.join(WORK, name);
  await mkdir(path.join(dir, 'temp'), { recursive: true });
  const env: Record<string, string> = {
    ...baseEnv(),
    GITHUB_ACTIONS: 'true',
    GITHUB_OUTPUT: path.join(dir, 'output'),
    GITHUB_STEP_SUMMARY: path.join(dir, 'summary.md'),
    RUNNER_TEMP: path.join(dir, 'temp'),
  };
  for (const [k, v] of Object.entries(inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const proc = execa(process.execPath, [entry], {
    env,
    extendEnv: false,
    reject: false,
    cwd: WORK,
  });
  return { dir, proc };
}

/** GITHUB_OUTPUT's name<<DELIMITER blocks */
async function outputsOf(dir: string): Promise<Record<string, string>> {
  const text = await readFile(path.join(dir, 'output'), 'utf8');
  const outputs: Record<string, string> = {};
  for (const m of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2\n/gm)) outputs[m[1]!] = m[3]!;
  return outputs;
}

const inputs = (release: string, extra: Record<string, string> = {}) => ({
  release,
  config,
  package: tarball,
  'ssh-private-key': key,
  'known-hosts': knownHosts,
  batch: '1',
  ...extra,
});

async function until(what: string, ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(path.join(HOME, '.ssh'), { recursive: true, mode: 0o700 });
  // global setup built dist/; --ignore-scripts keeps pack from building it again
  const packed = await execa(
    'npm',
    ['pack', '--pack-destination', WORK, '--json', '--ignore-scripts'],
    { cwd: root },
  );
  tarball = path.join(
    WORK,
    (JSON.parse(String(packed.stdout)) as [{ filename: string }])[0].filename,
  );
  lab = await startLab({ handleSignals: false, hosts: 2, subnet: '127.0.160', workDir: WORK });
  const files = labFiles(WORK);
  key = await readFile(files.clientKey, 'utf8');
  knownHosts = await readFile(files.knownHosts, 'utf8');
  const doc = parse(lab.config()) as { ssh: Record<string, unknown> };
  delete doc.ssh.identity_file;
  delete doc.ssh.known_hosts; // ~/.ssh/known_hosts, under HOME
  await writeFile(config, stringify(doc, { lineWidth: 0 }));
  const socket = path.join(WORK, 'test-agent.sock');
  const started = await execa('ssh-agent', ['-a', socket, '-s']);
  testAgent = { socket, pid: Number(/SSH_AGENT_PID=(\d+)/.exec(String(started.stdout))?.[1]) };
  await execa('ssh-add', ['-q', files.clientKey], { env: { SSH_AUTH_SOCK: socket } });
  // setup reads known_hosts from HOME too; the action must bring its own afterwards
  await copyFile(files.knownHosts, path.join(HOME, '.ssh', 'known_hosts'));
  const setup = await deploy(['setup']);
  expect(setup.code, setup.stderr).toBe(0);
  await rm(path.join(HOME, '.ssh', 'known_hosts'));
  await Promise.all(
    ['r2', 'r3', 'r4'].map((r) => Promise.all(lab.hosts.map((h) => lab.stageRelease(h, r)))),
  );
}, 240_000);
afterAll(async () => {
  if (testAgent?.pid) process.kill(testAgent.pid);
  await lab?.stop();
});

describe('the GitHub Action, run with the environment a runner gives it', () => {
  it('refuses a missing release in one line, exit 2, before installing anything', async () => {
    const { proc, dir } = await startAction('no-release', { config });
    const r = await proc;
    expect([r.exitCode, String(r.stdout).trim()]).toEqual([
      2,
      '::error::input release is required (e.g. release: ${{ github.sha }})',
    ]);
    expect(await readdir(path.join(dir, 'temp'))).toEqual([]);
  });

  it('installs the package, rolls the release out and writes outputs and the summary', async () => {
    const { proc, dir } = await startAction('rollout', inputs('r2', { 'wait-lease': '30s' }));
    const r = await proc;
    expect(r.exitCode, `${String(r.stdout)}${String(r.stderr)}`).toBe(0);
    const outputs = await outputsOf(dir);
    expect(outputs).toMatchObject({
      result: 'deployed',
      'exit-code': '0',
      release: 'r2',
      'hosts-deployed': '2',
      'failed-requests': '0',
      error: '',
    });
    expect(outputs.requests).toMatch(/^\d+$/);
    expect(Number(outputs['elapsed-ms'])).toBeGreaterThan(0);
    // the NDJSON is kept in RUNNER_TEMP, its last line the result
    expect(outputs.ndjson?.startsWith(path.join(dir, 'temp'))).toBe(true);
    const ndjson = (await readFile(outputs.ndjson!, 'utf8')).trim().split('\n');
    expect(JSON.parse(ndjson.at(-1)!)).toMatchObject({ event: 'result', ok: true, release: 'r2' });
    const summary = await readFile(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toContain('### deploy rollout r2: ✓ deployed');
    expect(await liveReleases(deploy)).toEqual(['r2', 'r2']);
  });

  it('masks every line of the key first and never writes it anywhere', async () => {
    const dir = path.join(WORK, 'rollout');
    const lines = key.split('\n').filter((l) => l.trim());
    const secretLines = lines.filter((l) => !l.startsWith('-----'));
    const { proc } = await startAction('masked', inputs('r2', { 'dry-run': 'true' }));
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const stdout = String(r.stdout).split('\n');
    expect(stdout.slice(0, lines.length)).toEqual(lines.map((l) => `::add-mask::${l}`));
    const rest = `${stdout.slice(lines.length).join('\n')}${String(r.stderr)}`;
    for (const l of secretLines) expect(rest).not.toContain(l);
    // no file the action wrote holds it: not the temp dir, the outputs or the summary
    const found = await execa(
      'grep',
      ['-rlF', '--', secretLines[0]!, dir, path.join(WORK, 'masked')],
      {
        reject: false,
      },
    );
    expect(found.stdout).toBe('');
    // known-hosts was given to both runs, and each line was added once
    const nonEmpty = (t: string) => t.split('\n').filter((l) => l.trim());
    const home = await readFile(path.join(HOME, '.ssh', 'known_hosts'), 'utf8');
    expect(nonEmpty(home)).toEqual(nonEmpty(knownHosts).map((l) => l.trim()));
  });

  it('stops cleanly on a cancel while it queues for the fleet lease: exit 3, nothing changed', async () => {
    const holder = execa(
      process.execPath,
      [bundlePath, 'rollout', '--release', 'r3', '--json', '-c', config],
      {
        env: { ...baseEnv(), SSH_AUTH_SOCK: testAgent.socket },
        extendEnv: false,
        reject: false,
      },
    );
    let held = '';
    holder.stdout?.on('data', (chunk: Buffer) => (held += chunk.toString()));
    await until('the holder takes the fleet lease', () =>
      Promise.resolve(held.includes('"event":"step"')),
    );
    const { proc, dir } = await startAction('cancelled', inputs('r4', { 'wait-lease': '5m' }));
    const ndjson = async () => {
      const temp = path.join(dir, 'temp');
      const runs = await readdir(temp).catch(() => []);
      const file = runs[0] && path.join(temp, runs[0], 'rollout.ndjson');
      return file ? readFile(file, 'utf8').catch(() => '') : '';
    };
    await until('the action queues', async () => (await ndjson()).includes('"event":"lease.wait"'));
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode, String(r.stderr)).toBe(3);
    expect(await outputsOf(dir)).toMatchObject({
      result: 'cancelled',
      'exit-code': '3',
      'hosts-deployed': '0',
    });
    const summary = await readFile(path.join(dir, 'summary.md'), 'utf8');
    expect(summary).toMatch(
      /^### deploy rollout r4: cancelled\n\ncancelled \(SIGINT\) while waiting for the fleet lease/,
    );
    const first = await holder;
    expect(first.exitCode, String(first.stderr)).toBe(0);
    expect(await liveReleases(deploy)).toEqual(['r3', 'r3']);
  });
});
