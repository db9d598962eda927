import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { liveReleases, startFleet, type DeployRun, type Fleet } from './fleet-harness.js';

/**
 * A planted secret with a distinctive value goes through setup, rollouts (one
 * that succeeds, one that fails and rolls back, one refused before any host
 * is touched), verify, status and a watchdog tick, with and without --json:
 * it must appear in the release's .env (mode 0600) and nowhere else — not in
 * any output, not in any other file under the hosts' handoff directories, not
 * in the audit log, not in the host config.
 */

const NAME = 'LAB_DB_PASSWORD';
// $ and " too: .env must carry them literally
const SECRET = `pw-${randomBytes(9).toString('hex')}-$x"q`;
const DIRS = [
  '/srv/handoff',
  '/run/handoff',
  '/var/lock/handoff',
  '/opt/handoff',
  '/etc/handoff',
  '/etc/cron.d',
];

let fleet: Fleet;
const outputs: { what: string; run: DeployRun }[] = [];
async function deploy(args: string[]): Promise<DeployRun> {
  const run = await fleet.deploy(args);
  outputs.push({ what: args.join(' '), run });
  return run;
}

beforeAll(async () => {
  fleet = await startFleet({ hosts: 2, subnet: '127.0.50', workDir: '/tmp/handoff-e2e-50' });
  const doc = parse(await readFile(fleet.configPath, 'utf8')) as Record<string, unknown>;
  doc.env = { clear: { LAB_MODE: 'e2e' }, secret: [NAME] };
  await writeFile(fleet.configPath, stringify(doc, { lineWidth: 0 }));
  process.env[NAME] = SECRET;
  const setup = await deploy(['setup']);
  expect(setup.code, setup.stderr).toBe(0);
}, 180_000);
afterAll(async () => {
  delete process.env[NAME];
  await fleet?.stop();
});

describe('a planted secret', () => {
  it('is written into the release .env with mode 0600, and the rollout succeeds', async () => {
    await fleet.stageEverywhere('r2');
    const r = await deploy(['rollout', '--release', 'r2']);
    expect(r.code, r.stderr).toBe(0);
    await deploy(['rollout', '--release', 'r2', '--json']);
    for (const host of ['web-1', 'web-2']) {
      const env = await fleet.lab.inHost(host, ['cat', '/srv/handoff/lab/releases/r2/.env']);
      expect(env.stdout).toContain(`${NAME}='${SECRET}'`);
      expect(env.stdout).toContain(`LAB_MODE='e2e'`);
      const mode = await fleet.lab.inHost(host, [
        'stat',
        '-c',
        '%a',
        '/srv/handoff/lab/releases/r2/.env',
      ]);
      expect(mode.stdout.trim()).toBe('600');
    }
  });

  it('is masked in a pre-deploy hook’s output and in deploy rollback, human and --json', async () => {
    const hooks = path.join(path.dirname(fleet.configPath), '.handoff', 'hooks');
    await mkdir(hooks, { recursive: true });
    const hook = path.join(hooks, 'pre-deploy');
    // the hook inherits the orchestrator's environment, the secret included
    await writeFile(hook, `#!/bin/sh\necho "token is $${NAME}"\n`, { mode: 0o755 });
    try {
      const runs = [
        await deploy(['rollout', '--release', 'r2']),
        await deploy(['rollout', '--release', 'r2', '--json']),
        await deploy(['rollback', '--json']),
        await deploy(['rollout', '--release', 'r2']),
      ];
      for (const r of runs) {
        expect(r.code, r.stderr).toBe(0);
        expect(`${r.stdout}${r.stderr}`).toContain('token is ***');
        expect(`${r.stdout}${r.stderr}`).not.toContain(SECRET);
      }
    } finally {
      await rm(hook, { force: true });
    }
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2']);
  });

  it('missing from the environment stops the rollout with one line naming it, exit 2, no host touched', async () => {
    delete process.env[NAME];
    try {
      await fleet.stageEverywhere('r9');
      const r = await deploy(['rollout', '--release', 'r9']);
      expect(r.code).toBe(2);
      expect(r.stderr.trim()).toBe(
        `deploy: env.secret[0]: ${NAME} is not set in this environment; export it (a CI secret) before the rollout`,
      );
      for (const host of ['web-1', 'web-2']) {
        const env = await fleet.lab.inHost(host, [
          'test',
          '-e',
          '/srv/handoff/lab/releases/r9/.env',
        ]);
        expect(env.exitCode).not.toBe(0);
      }
      expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2']);
    } finally {
      process.env[NAME] = SECRET;
    }
  });

  it('stays out of a failing rollout and its rollback', async () => {
    await fleet.stageEverywhere('r3', { bad: true });
    const r = await deploy(['rollout', '--release', 'r3']);
    expect(r.code).toBe(1);
    const j = await deploy(['rollout', '--release', 'r3', '--json']);
    expect(j.code).toBe(1);
    // GitHub Actions mode: annotations on stderr, and the step summary file
    const summary = '/tmp/handoff-e2e-50/step-summary.md';
    Object.assign(process.env, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    try {
      const g = await deploy(['rollout', '--release', 'r3']);
      expect(g.code).toBe(1);
    } finally {
      delete process.env.GITHUB_ACTIONS;
      delete process.env.GITHUB_STEP_SUMMARY;
    }
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toContain('r3');
    expect(markdown).not.toContain(SECRET);
    expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r2', 'r2']);
  });

  it('stays out of verify, status and a watchdog tick', async () => {
    for (const args of [['verify'], ['verify', '--json'], ['status'], ['status', '--json']])
      expect((await deploy(args)).code).toBe(0);
    for (const host of ['web-1', 'web-2']) {
      const tick = await fleet.lab.ssh(host, [
        '/opt/handoff/bin/deploy',
        'watchdog',
        '-c',
        '/etc/handoff/lab.json',
      ]);
      outputs.push({
        what: `watchdog on ${host}`,
        run: { code: tick.exitCode ?? -1, stdout: tick.stdout, stderr: tick.stderr },
      });
      expect(tick.exitCode, tick.stderr).toBe(0);
    }
  });

  it('read through a command adapter lands in .env only; a failing one stops the rollout before any host, exit 3', async () => {
    // the value exists only in this file: deploy.yml names the command, never the value
    const value = `cmd-${randomBytes(9).toString('hex')}`;
    const file = '/tmp/handoff-e2e-50/command-secret';
    await writeFile(file, `${value}\n`, { mode: 0o600 });
    const original = await readFile(fleet.configPath, 'utf8');
    const withSource = async (command: string[]) => {
      const doc = parse(original) as { env: { secret: unknown[] } };
      // the same name, so the host config (names only) is still the one setup published
      doc.env.secret = [{ name: NAME, command }];
      await writeFile(fleet.configPath, stringify(doc, { lineWidth: 0 }));
    };
    delete process.env[NAME];
    try {
      await withSource(['cat', file]);
      await fleet.stageEverywhere('r5');
      const r = await deploy(['rollout', '--release', 'r5', '--json']);
      expect(r.code, r.stderr).toBe(0);
      for (const host of ['web-1', 'web-2']) {
        const env = await fleet.lab.inHost(host, ['cat', '/srv/handoff/lab/releases/r5/.env']);
        expect(env.stdout).toContain(`${NAME}='${value}'`);
        const found = await fleet.lab.inHost(host, ['grep', '-rlF', '--', value, ...DIRS]);
        expect(found.stdout.trim()).toBe('/srv/handoff/lab/releases/r5/.env');
      }
      await withSource(['cat', '/tmp/handoff-e2e-50/no-such-secret']);
      await fleet.stageEverywhere('r6');
      const missing = await deploy(['rollout', '--release', 'r6']);
      expect([missing.code, missing.stderr.trim()]).toEqual([
        3,
        `deploy: env.secret[0]: ${NAME}: command cat exited 1: cat: /tmp/handoff-e2e-50/no-such-secret: No such file or directory`,
      ]);
      for (const host of ['web-1', 'web-2']) {
        const env = await fleet.lab.inHost(host, [
          'test',
          '-e',
          '/srv/handoff/lab/releases/r6/.env',
        ]);
        expect(env.exitCode).not.toBe(0);
      }
      expect(await liveReleases((a) => fleet.deploy(a))).toEqual(['r5', 'r5']);
      for (const { what, run } of outputs)
        expect(`${run.stdout}${run.stderr}`, what).not.toContain(value);
    } finally {
      await writeFile(fleet.configPath, original);
      process.env[NAME] = SECRET;
    }
  });

  it('appears in no output, no audit line and no file but the release .env', async () => {
    expect(outputs.length).toBeGreaterThan(8);
    for (const { what, run } of outputs) {
      expect(run.stdout, what).not.toContain(SECRET);
      expect(run.stderr, what).not.toContain(SECRET);
    }
    for (const host of ['web-1', 'web-2']) {
      const audit = await fleet.lab.inHost(host, ['cat', '/srv/handoff/lab/audit.jsonl']);
      // the failing rollout's first host (batch 1) audited r3's steps; both audited r2's
      expect(audit.stdout).toContain(host === 'web-1' ? '"release":"r3"' : '"release":"r2"');
      const found = await fleet.lab.inHost(host, ['grep', '-rlF', '--', SECRET, ...DIRS]);
      const files = found.stdout.split('\n').filter(Boolean);
      expect(files.length).toBeGreaterThan(0);
      expect(
        files.filter((f) => !/^\/srv\/handoff\/lab\/releases\/r[0-9]+\/\.env$/.test(f)),
      ).toEqual([]);
    }
  });
});
