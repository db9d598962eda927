import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { bundlePath } from '../../scripts/build.js';
import { publishRelease, switchRelease } from '../../src/host/releases.js';
import { createRuntime } from '../../src/host/runtime/create.js';
import { runtimeSettings } from '../../src/host/runtime/runtime.js';
import { hostFixture, type HostFixture } from '../support/host-fixture.js';
import { scratchDir } from '../support/scratch.js';

const example = path.resolve('infra/deploy.example.yml');

async function deploy(args: readonly string[]) {
  const r = await execa(process.execPath, [bundlePath, ...args], { reject: false });
  return { code: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

async function variant(replace: [string, string]): Promise<string> {
  const text = await readFile(example, 'utf8');
  if (!text.includes(replace[0])) throw new Error(`example has no ${replace[0]}`);
  const file = path.join(await scratchDir('handoff-cli-'), 'deploy.yml');
  await writeFile(file, text.replace(replace[0], replace[1]));
  return file;
}

describe('deploy check', () => {
  it('prints the timeline and every invariant for the example, exit 0', async () => {
    const r = await deploy(['check', '-c', example]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/await-out\s+0s\s+10s/);
    expect(r.stdout).toContain('all invariants hold');
    expect(r.stdout).toContain(
      'gateway         127.0.0.1:8080 refuses connections, its status command exits non-zero',
    );
    expect(r.stdout).toContain('publish-worker  its status command exits non-zero');
  });

  it('lists a service that opted out of the stop proof as not proven', async () => {
    const file = await variant([
      '    keep_alive_timeout: 65s\n',
      '    keep_alive_timeout: 65s\n    stop_proof: false\n',
    ]);
    const r = await deploy(['check', '--json', '-c', file]);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last['stop_proof']).toEqual([
      { service: 'gateway', proven: false, by: [] },
      { service: 'publish-worker', proven: true, by: ['its status command exits non-zero'] },
    ]);
  });

  it('exits 1 naming the invariant one changed number breaks', async () => {
    const r = await deploy([
      'check',
      '-c',
      await variant(['max_request: 30s', 'max_request: 90s']),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/✗ request-before-kill/);
    expect(r.stderr).toBe('deploy: invariant request-before-kill fails');
  });

  it('fails a warning only with --strict', async () => {
    const file = await variant(['every: 60s', 'every: 20s']);
    expect((await deploy(['check', '-c', file])).code).toBe(0);
    const strict = await deploy(['check', '--strict', '-c', file]);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('watchdog-vs-drain');
  });

  it('prints {ok, timeline, invariants} with --json', async () => {
    const r = await deploy(['check', '--json', '-c', example]);
    const last = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({ event: 'result', ok: true });
    expect(last).toHaveProperty('timeline.phases');
    expect(last).toHaveProperty('invariants');
  });

  it('answers bad config with one line per problem, exit 2, no stack trace', async () => {
    const r = await deploy([
      'check',
      '-c',
      await variant(['max_request: 30s', 'max_request: -5s']),
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^deploy: drain\.max_request: .*\(.*deploy\.yml:31:\d+\)$/);
    expect(r.stderr).not.toMatch(/\s+at /);
  });

  it('answers a missing file with one line, exit 2', async () => {
    const r = await deploy(['check', '-c', '/nonexistent/deploy.yml']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('deploy verify --local', () => {
  let host: HostFixture | undefined;
  afterAll(async () => {
    if (host) await createRuntime(runtimeSettings(host.config), 'r1').stop();
  });

  it('checks every service on this host: exit 0 when they pass, 1 naming the one that fails', async () => {
    host = await hostFixture();
    const cfg = path.join(host.dir, 'deploy.yml');
    await writeFile(cfg, host.yaml);
    await publishRelease(host.config.host.root, 'r1', {});
    await switchRelease(host.config.host.root, 'r1');
    const runtime = createRuntime(runtimeSettings(host.config), 'r1');
    await runtime.start();
    await expect
      .poll(
        () =>
          fetch(`http://127.0.0.1:${host!.port}/health`)
            .then((r) => r.status)
            .catch(() => 0),
        { timeout: 10_000 },
      )
      .toBe(200);
    const ok = await deploy(['verify', '--local', '-c', cfg]);
    expect(ok.code, ok.stderr).toBe(0);
    // the release column: this service does not name one (no x-release)
    expect(ok.stdout).toMatch(/✓ app\s+-\s+\d+ms\s+ok/);
    await runtime.stop();
    const bad = await deploy(['verify', '--local', '-c', cfg]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/✗ app\s+-\s+\d+ms\s+refused/);
    expect(bad.stderr).toBe('deploy: verify failed: app');
  });
});
