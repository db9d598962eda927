import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath } from '../../scripts/build.js';
import { startFleet, type Fleet } from './fleet-harness.js';

/*
 * What an operator reads during a real rollout, in CI: GitHub Actions' groups,
 * annotations and step summary, and in a plain log every step's start. The
 * runs are pipes (no TTY), as in CI.
 */
let fleet: Fleet;
let tmp: string;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.40', workDir: '/tmp/handoff-e2e-40' });
  tmp = await mkdtemp(path.join(tmpdir(), 'handoff-output-'));
});
afterAll(async () => {
  await fleet?.stop();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

/** this process's environment without anything that would choose the output for us */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(GITHUB_|FORCE_COLOR|NO_COLOR|CI$)/.test(k)) continue;
    env[k] = v;
  }
  return { ...env, LANG: 'C.UTF-8', HANDOFF_WHO: 'e2e', ...fleet.lab.deployEnv() };
}

async function deploy(args: readonly string[], env: Record<string, string>) {
  const r = await execa(process.execPath, [bundlePath, ...args, '-c', fleet.configPath], {
    reject: false,
    timeout: 300_000,
    extendEnv: false,
    env: { ...baseEnv(), ...env },
  });
  return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const ESC = '\u001b';

describe('deploy rollout in GitHub Actions', () => {
  it('groups each host, annotates the failed one, and appends the summary table, with no escape codes', async () => {
    await fleet.stageEverywhere('r3', { bad: true });
    const summary = path.join(tmp, 'summary.md');
    const r = await deploy(['rollout', '--release', 'r3'], {
      GITHUB_ACTIONS: 'true',
      GITHUB_STEP_SUMMARY: summary,
      FORCE_COLOR: '1',
    });
    const log = `${r.stderr}\n${r.stdout}`;
    expect(r.code, log).toBe(1);
    const lines = r.stderr.split('\n');
    const open = lines.indexOf('::group::web-1 (wave 1 of 3)');
    expect(open, log).toBeGreaterThanOrEqual(0);
    const close = lines.indexOf('::endgroup::', open);
    expect(close, log).toBeGreaterThan(open);
    const inGroup = lines.slice(open, close);
    expect(inGroup.some((l) => l.startsWith('web-1: await-out… (up to '))).toBe(true);
    expect(inGroup.some((l) => l.startsWith('ERROR web-1: verify ✗'))).toBe(true);
    const error = lines.find((l) => l.startsWith('::error title=web-1 rolled-back::'));
    expect(error, log).toMatch(
      /^::error title=web-1 rolled-back::web-1: release r3 failed verify: .*\(stopped at verify\)$/,
    );
    expect(log).not.toContain(ESC);

    const md = await readFile(summary, 'utf8');
    expect(md).toContain('### deploy rollout r3: ✗ rollout failed in ');
    expect(md).toContain('| Host | Result | Release before | Release after | Steps |');
    expect(md).toMatch(
      /^\| web-1 \| ✗ rolled-back \| r1 \| r1 \| prepare \d+ms · lock \d+ms · capacity \d+ms · drain .* · verify [\d.]+s ✗ · rollback /m,
    );
    expect(md).toContain('| web-2 | not reached | – | unchanged |  |');
    expect(md).toContain('| web-3 | not reached | – | unchanged |  |');
  });
});

describe('deploy rollout in a plain log', () => {
  it('prints every step when it starts and when it ends, and no escape codes', async () => {
    await fleet.stageEverywhere('r2');
    const r = await deploy(['rollout', '--release', 'r2', '--batch', '2'], { TERM: 'xterm' });
    const log = `${r.stderr}\n${r.stdout}`;
    expect(r.code, log).toBe(0);
    const lines = r.stderr.split('\n');
    for (const host of ['web-1', 'web-2', 'web-3']) {
      const starts = lines.filter((l) => l.startsWith(`${host}: `) && /^\S+: [a-z-]+…/.test(l));
      expect(
        starts.map((l) => /^\S+: ([a-z-]+)…/.exec(l)?.[1]),
        log,
      ).toEqual([
        'prepare',
        'lock',
        'capacity',
        'drain',
        'await-out',
        'overlap',
        'stop',
        'switch',
        'start',
        'verify',
        'undrain',
        'await-in',
        'confirm',
        'unlock',
      ]);
    }
    expect(lines).toContain('wave 1 of 2: web-1, web-2');
    expect(lines.find((l) => l.startsWith('web-1: await-out… (up to '))).toBeDefined();
    expect(log).not.toContain(ESC);
    expect(r.stdout).toContain('deployed: release r2 in ');
  });
});
