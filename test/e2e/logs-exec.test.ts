import { readFile, writeFile } from 'node:fs/promises';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { bundlePath } from '../../scripts/build.js';
import { startFleet, type Fleet } from './fleet-harness.js';

/**
 * `deploy logs` and `deploy exec` against two lab hosts over real SSH: the
 * command's words reach the host as they were typed (no shell between),
 * run in the live release with its environment, its secret masked in what is
 * printed, audited; `logs -f` follows both hosts until Ctrl-C and leaves
 * nothing running there.
 */
const NAME = 'LAB_EXEC_TOKEN';
const SECRET = 'exec-secret-5b1d9f';
const LOG = '/srv/handoff/lab/logs/app.start.log';
let fleet: Fleet;

/** the bundle with -c before the hosts: after `--` every word is the command's */
function deploy(args: readonly string[]) {
  return execa(
    process.execPath,
    [bundlePath, args[0] ?? '', '-c', fleet.configPath, ...args.slice(1)],
    {
      reject: false,
      env: { HANDOFF_WHO: 'e2e', ...fleet.lab.deployEnv(), [NAME]: SECRET },
    },
  );
}

beforeAll(async () => {
  fleet = await startFleet({ hosts: 2, subnet: '127.0.151', workDir: '/tmp/handoff-e2e-151' });
  const doc = parse(await readFile(fleet.configPath, 'utf8')) as Record<string, unknown>;
  doc.env = { secret: [NAME] };
  await writeFile(fleet.configPath, stringify(doc, { lineWidth: 0 }));
  const setup = await deploy(['setup']);
  expect(setup.exitCode, setup.stderr).toBe(0);
  await fleet.stageEverywhere('r2');
  const rollout = await deploy(['rollout', '--release', 'r2']);
  expect(rollout.exitCode, rollout.stderr).toBe(0);
}, 240_000);
afterAll(async () => {
  await fleet?.stop();
});

describe('deploy exec', () => {
  it('runs the words as typed in the live release with its environment, on each host, secret masked', async () => {
    const script = `printf '%s\\n' "$RELEASE $(pwd)" "token=$${NAME}"`;
    const r = await deploy(['exec', 'web-1', 'web-2', '--', 'sh', '-c', script]);
    expect(r.exitCode, r.stderr).toBe(0);
    for (const host of ['web-1', 'web-2']) {
      expect(r.stdout).toContain(`${host} | r2 /srv/handoff/lab/releases/r2`);
      expect(r.stdout).toContain(`${host} | token=***`);
      expect(r.stdout).toContain(`${host}: exit 0 (release r2)`);
    }
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    // one word with quotes, a semicolon and a $( ): printed, never run by a shell
    const word = `it's; $(touch /tmp/pwned) "x"`;
    const literal = await deploy(['exec', 'web-1', '--', 'printf', '%s\\n', word]);
    expect(literal.exitCode, literal.stderr).toBe(0);
    expect(literal.stdout).toContain(`web-1 | ${word}`);
    const pwned = await fleet.lab.inHost('web-1', ['test', '-e', '/tmp/pwned']);
    expect(pwned.exitCode).not.toBe(0);
  });

  it("says each host's exit code and fails when one failed, and the audit has it", async () => {
    const r = await deploy([
      'exec',
      'web-1',
      'web-2',
      '--',
      'sh',
      '-c',
      'test "$(hostname)" != web-2 || exit 3',
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/web-1: exit 0 \(release r2\)\nweb-2: exit 3 \(release r2\)/);
    expect(r.stderr).toContain('exec failed on web-2');
    const audit = await deploy(['audit', '--hosts', 'web-2', '--json']);
    const result = JSON.parse(audit.stdout.trim().split('\n').at(-1) ?? '{}') as {
      entries: { step: string; result: string; who: string; detail?: string }[];
    };
    const execs = result.entries.filter((e) => e.step === 'exec');
    expect(execs.at(-1)).toMatchObject({
      result: 'failed',
      detail: expect.stringMatching(/"sh","-c".*: exit 3$/) as string,
    });
    expect(execs.at(-1)?.who).toMatch(/^e2e@/);
  });
});

describe('deploy logs', () => {
  it('follows two hosts, each line with its host, until Ctrl-C, and leaves no tail behind', async () => {
    const logs = execa(
      process.execPath,
      [bundlePath, 'logs', '-c', fleet.configPath, 'web-1', 'web-2', '-f', '--tail', '0'],
      { reject: false, env: { ...fleet.lab.deployEnv() } },
    );
    let seen = '';
    logs.stdout?.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    const until = async (text: string) => {
      const deadline = Date.now() + 20_000;
      while (!seen.includes(text)) {
        if (Date.now() > deadline) throw new Error(`never saw ${text}; saw:\n${seen}`);
        for (const h of ['web-1', 'web-2'])
          await fleet.lab.inHost(h, ['sh', '-c', `echo "mark from $(hostname)" >> ${LOG}`]);
        await new Promise((r) => setTimeout(r, 300));
      }
    };
    await until('web-1 | mark from web-1');
    await until('web-2 | mark from web-2');
    logs.kill('SIGINT');
    const r = await logs;
    expect(r.exitCode, String(r.stderr)).toBe(0);
    for (const h of ['web-1', 'web-2']) {
      const deadline = Date.now() + 10_000;
      let tails = '';
      do {
        tails = (await fleet.lab.inHost(h, ['sh', '-c', `pgrep -af "[t]ail -n 0 -F" || true`]))
          .stdout;
      } while (tails.trim() !== '' && Date.now() < deadline);
      // the pattern does not match pgrep's own command line ([t])
      expect(tails.trim(), `${h} still runs tail`).toBe('');
    }
  });
});
