import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root } from '../../scripts/build.js';
import { startLab, type Lab } from '../../scripts/lab/index.js';
import { liveReleases } from './fleet-harness.js';

/**
 * The package as an operator installs it: `npm pack`, then
 * `npm install -g --offline` of the tarball into an empty prefix (every
 * runtime dependency is in the bundle, so nothing may come from a registry),
 * and that prefix's `deploy` — with only Node and the prefix on PATH — runs
 * `--version`, `init`, `check`, `setup` and a lab rollout.
 */
const WORK = '/tmp/handoff-e2e-140';
const prefix = path.join(WORK, 'prefix');
const deployBin = path.join(prefix, 'bin', 'deploy');
let lab: Lab;

const env = () => ({
  ...lab.deployEnv(),
  HANDOFF_WHO: 'e2e',
  PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
});
const deploy = async (args: readonly string[], cwd = WORK) => {
  const r = await execa(deployBin, args, { cwd, env: env(), extendEnv: false, reject: false });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
};

beforeAll(async () => {
  await rm(WORK, { recursive: true, force: true });
  await mkdir(prefix, { recursive: true });
  // global setup built dist/; --ignore-scripts keeps pack from building it again
  const packed = await execa(
    'npm',
    ['pack', '--pack-destination', WORK, '--json', '--ignore-scripts'],
    { cwd: root },
  );
  const [{ filename }] = JSON.parse(String(packed.stdout)) as [{ filename: string }];
  await execa(
    'npm',
    ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, `./${filename}`],
    { cwd: WORK },
  );
  lab = await startLab({ handleSignals: false, hosts: 2, subnet: '127.0.140', workDir: WORK });
}, 180_000);
afterAll(async () => {
  await lab?.stop();
});

describe('the packed tarball, installed into an empty prefix', () => {
  it('installs one package, and its deploy prints package.json’s version', async () => {
    const installed = await readdir(path.join(prefix, 'lib', 'node_modules'));
    expect(installed).toEqual(['handoff-deploy']);
    const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const r = await deploy(['--version']);
    expect([r.code, r.stdout.trim()]).toEqual([0, pkg.version]);
  });

  it('writes a starter deploy.yml with init, which check accepts', async () => {
    const dir = path.join(WORK, 'starter');
    await mkdir(dir);
    const init = await deploy(['init'], dir);
    expect(init.code, init.stderr).toBe(0);
    const check = await deploy(['check'], dir);
    expect(check.code, check.stderr).toBe(0);
  });

  it('sets up the lab and rolls a release out with the installed command', async () => {
    const config = path.join(WORK, 'deploy.yml');
    await writeFile(config, lab.config());
    const run = (args: readonly string[]) => deploy([...args, '-c', config]);
    const check = await run(['check']);
    expect(check.code, check.stderr).toBe(0);
    const setup = await run(['setup']);
    expect(setup.code, setup.stderr).toBe(0);
    await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, 'r1')));
    const rollout = await run(['rollout', '--release', 'r1']);
    expect(rollout.code, rollout.stderr).toBe(0);
    expect(await liveReleases(run)).toEqual(['r1', 'r1']);
  });
});
