import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad } from '../../scripts/lab/index.js';
import type { HostOutcome, HostRelease } from '../../src/rollout/types.js';
import { ended } from '../support/handshake.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { until } from './watch-rollout.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.48', workDir: '/tmp/handoff-e2e-48' });
});
afterAll(async () => {
  await fleet?.stop();
});

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));
/** the --json result line (snake_case at the edge); only what these tests read */
interface ResultLine {
  readonly release: string;
  readonly hosts: readonly HostOutcome[];
  readonly ended: readonly HostRelease[];
  readonly fleet_rollback?: { readonly hosts: readonly HostOutcome[] };
}
const resultOf = (stdout: string): ResultLine =>
  JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as ResultLine;

describe('deploy rollback', () => {
  it('returns every host to the previous release with zero failed requests under load', async () => {
    await fleet.stageEverywhere('r2');
    const forward = await fleet.deploy(['rollout', '--release', 'r2']);
    expect(forward.code, forward.stderr).toBe(0);
    expect(await releases()).toEqual(['r2', 'r2', 'r2']);

    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const back = await fleet.deploy(['rollback', '--json']);
    const report = await load.stop();
    expect(back.code, back.stdout).toBe(0);
    expect(report.failed, formatReport(report)).toBe(0);
    const result = resultOf(back.stdout);
    expect(result.release).toBe('r1');
    expect(result.ended).toEqual(ended('r1', 'r1', 'r1'));
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  });

  it('refuses with exit 3, touching nothing, when a host does not have the release named', async () => {
    const r = await fleet.deploy(['rollback', 'r9']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('rollback: release r9 is not on web-1 (has r1, r2)');
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  });
});

describe('rollout.on_failure: rollback', () => {
  it('returns the earlier waves to their previous release when the last wave fails, zero failed requests', async () => {
    await fleet.configure({ onFailure: 'rollback', batch: 1 });
    const [web1, web2, web3] = fleet.lab.hosts;
    await fleet.lab.stageRelease(web1!, 'r3');
    await fleet.lab.stageRelease(web2!, 'r3');
    await fleet.lab.stageRelease(web3!, 'r3', { bad: true });
    const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
    const r = await fleet.deploy(['rollout', '--release', 'r3', '--json']);
    const report = await load.stop();
    expect(r.code, r.stderr).toBe(1);
    expect(report.failed, formatReport(report)).toBe(0);
    const result = resultOf(r.stdout);
    expect(result.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-1 deployed',
      'web-2 deployed',
      'web-3 rolled-back',
    ]);
    // the latest wave first, each with the full handshake
    expect(result.fleet_rollback?.hosts.map((h) => `${h.host} ${h.result}`)).toEqual([
      'web-2 deployed',
      'web-1 deployed',
    ]);
    expect(result.fleet_rollback?.hosts[0]?.steps.map((s) => s.step)).toContain('await-out');
    expect(result.ended).toEqual(ended('r1', 'r1', 'r1'));
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);

    const text = await fleet.deploy(['rollout', '--release', 'r3']);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain('ended on: r1 web-1, web-2, web-3');
  });
});

describe('hooks', () => {
  const hooksDir = path.join(path.dirname('/tmp/handoff-e2e-48/deploy.yml'), '.handoff', 'hooks');
  const trail = '/tmp/handoff-e2e-48/hooks.log';
  const hook = async (name: string, extra = ''): Promise<void> => {
    const file = path.join(hooksDir, name);
    await writeFile(
      file,
      `#!/bin/sh\necho "${name} [$HANDOFF_RELEASE] [$HANDOFF_HOSTS] [$HANDOFF_HOST] [$HANDOFF_RESULT] [$HANDOFF_PERFORMER]" >> ${trail}\necho "said by ${name}"\n${extra}\n`,
    );
    await chmod(file, 0o755);
  };

  afterAll(() => rm(path.dirname(hooksDir), { recursive: true, force: true }));

  it('runs each hook in order with its variables, its output prefixed', async () => {
    expect(fleet.configPath).toBe('/tmp/handoff-e2e-48/deploy.yml');
    await mkdir(hooksDir, { recursive: true });
    await rm(trail, { force: true });
    for (const name of ['pre-deploy', 'pre-host', 'post-host', 'post-deploy']) await hook(name);
    await fleet.configure({ batch: 1 });
    await fleet.stageEverywhere('r4');
    const r = await fleet.deploy(['rollout', '--release', 'r4']);
    expect(r.code, r.stderr).toBe(0);
    const who = `e2e@${hostname()}`;
    const all = '[web-1,web-2,web-3]';
    expect((await readFile(trail, 'utf8')).trim().split('\n')).toEqual([
      `pre-deploy [r4] ${all} [] [] [${who}]`,
      `pre-host [r4] ${all} [web-1] [] [${who}]`,
      `post-host [r4] ${all} [web-1] [deployed] [${who}]`,
      `pre-host [r4] ${all} [web-2] [] [${who}]`,
      `post-host [r4] ${all} [web-2] [deployed] [${who}]`,
      `pre-host [r4] ${all} [web-3] [] [${who}]`,
      `post-host [r4] ${all} [web-3] [deployed] [${who}]`,
      `post-deploy [r4] ${all} [] [ok] [${who}]`,
    ]);
    expect(r.stderr).toContain('hook pre-deploy: said by pre-deploy');
    expect(r.stderr).toContain('web-2: hook post-host: said by post-host');
  });

  it('a failing pre-deploy refuses with exit 3 and touches no host', async () => {
    await rm(trail, { force: true });
    await hook('pre-deploy', 'echo "change freeze"; exit 1');
    await fleet.stageEverywhere('r5');
    const audit = (h: (typeof fleet.lab.hosts)[number]) =>
      fleet.lab
        .inHost(h, ['cat', `${fleet.lab.layout.paths.root}/audit.jsonl`])
        .then((x) => x.stdout);
    const before = await Promise.all(fleet.lab.hosts.map(audit));
    const r = await fleet.deploy(['rollout', '--release', 'r5']);
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toContain('hook pre-deploy: change freeze');
    expect(r.stderr).toContain('hook pre-deploy exited 1: nothing was touched on any host');
    expect(await releases()).toEqual(['r4', 'r4', 'r4']);
    // no host was locked, drained or switched: not one audit line more
    expect(await Promise.all(fleet.lab.hosts.map(audit))).toEqual(before);
    // a refusal is news to whoever post-deploy notifies (issue 34)
    expect((await readFile(trail, 'utf8')).trim().split('\n')).toEqual([
      expect.stringMatching(/^pre-deploy \[r5\]/),
      expect.stringMatching(/^post-deploy \[r5\] .* \[blocked\]/),
    ]);
  });

  it('a rollout the fleet lease refuses runs no pre-deploy, and post-deploy with blocked (issue 34)', async () => {
    await rm(trail, { force: true });
    const go = '/tmp/handoff-e2e-48/go';
    await rm(go, { force: true });
    // the first rollout holds the fleet lease while its pre-deploy waits for the go
    await hook(
      'pre-deploy',
      `for i in $(seq 600); do [ -e ${go} ] && exit 0; sleep 0.1; done; exit 1`,
    );
    await fleet.stageEverywhere('r6');
    const first = fleet.spawnDeploy(['rollout', '--release', 'r6']);
    const lines = () =>
      readFile(trail, 'utf8').then(
        (t) => t.trim().split('\n'),
        () => [],
      );
    expect(await until(lines, (l) => l.length > 0, 30_000)).toEqual([
      expect.stringMatching(/^pre-deploy \[r6\]/),
    ]);
    const second = await fleet.deploy(['rollout', '--release', 'r6']);
    await writeFile(go, '');
    const firstEnd = await first;
    expect(second.code, second.stderr).toBe(3);
    expect(second.stderr).toMatch(/the fleet lease is held \(on web-\d\) by deploy rollout r6/);
    expect(firstEnd.exitCode, String(firstEnd.stderr)).toBe(0);
    const trailLines = await lines();
    // the second's post-deploy, with no pre-deploy of its own, came while the first held the lease
    expect(trailLines.slice(0, 2)).toEqual([
      expect.stringMatching(/^pre-deploy \[r6\]/),
      expect.stringMatching(/^post-deploy \[r6\] .* \[blocked\]/),
    ]);
    expect(trailLines.filter((l) => l.startsWith('pre-deploy'))).toHaveLength(1);
    expect(trailLines.at(-1)).toMatch(/^post-deploy \[r6\] .* \[ok\]/);
    expect(await releases()).toEqual(['r6', 'r6', 'r6']);
  });
});
