import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const withRollout = (rollout: string, base = minimal): string => `${base}rollout:\n${rollout}`;
const haproxy = minimal.replace(
  /balancer:\n( {2}.*\n)+?runtime:/,
  'balancer:\n  kind: haproxy\n  socket: /run/haproxy/admin.sock\n  backend: be_api\nruntime:',
);
const threeHosts = minimal.replace(
  '  - { name: web-2, address: 10.0.0.2 }\n',
  '  - { name: web-2, address: 10.0.0.2 }\n  - { name: web-3, address: 10.0.0.3 }\n',
);

describe('rollout.canary, bake and watch', () => {
  it('reads every key, percentages as fractions and the command beside deploy.yml', async () => {
    const file = await writeConfig(
      withRollout(
        '  canary: { hosts: 1, bake: 2m, source: command, command: ./counts.sh, command_timeout: 3s, margin: 0.5%, latency_margin: 50%, latency_floor: 2ms, min_requests: 200, inconclusive: pass, poll: 2s }\n  bake: 1m\n  watch: 5m\n',
      ),
    );
    const { rollout } = await loadConfig(file, { env: {} });
    expect(rollout.canary).toEqual({ hosts: { kind: 'count', count: 1 }, bake: 120_000 });
    expect(rollout.bake).toBe(60_000);
    expect(rollout.watch).toBe(300_000);
    expect(rollout.judgement).toEqual({
      source: 'command',
      command: file.replace(/deploy\.yml$/, 'counts.sh'),
      commandTimeout: 3000,
      margin: 0.005,
      latencyMargin: 0.5,
      latencyFloor: 2,
      minRequests: 200,
      inconclusive: 'pass',
      poll: 2000,
    });
  });

  it('defaults the source to balancer with HAProxy, and the bake to 5m', async () => {
    const { rollout } = await loadConfig(
      await writeConfig(withRollout('  canary: {}\n', haproxy)),
      {
        env: {},
      },
    );
    expect(rollout.canary).toEqual({ hosts: { kind: 'count', count: 1 }, bake: 300_000 });
    expect(rollout.judgement?.source).toBe('balancer');
    // issue 34: below 5 ms a relative latency test fails healthy canaries
    expect(rollout.judgement?.latencyFloor).toBe(5);
  });

  it('refuses a margin that is not a percentage, with where it is', async () => {
    expect(await problemsOf(withRollout('  canary: { margin: 2 }\n'))).toEqual([
      'rollout.canary.margin: must be a percentage like "1%" (FILE:20:21)',
    ]);
    expect(await problemsOf(withRollout('  canary: { margin: 0% }\n'))).toEqual([
      'rollout.canary.margin: must be above 0% and at most 100% (FILE:20:21)',
    ]);
  });

  it('refuses source command without a command, and a command without source command', async () => {
    expect(await problemsOf(withRollout('  canary: { source: command }\n'))).toEqual([
      'rollout.canary.source: source command needs rollout.canary.command (FILE:20:21)',
    ]);
    expect(await problemsOf(withRollout('  canary: { command: ./x }\n'))).toEqual([
      'rollout.canary.command: is only run with source: command; set source: command or remove it (FILE:20:22)',
    ]);
  });

  it('refuses source balancer where the balancer has no per-host counts', async () => {
    expect(await problemsOf(withRollout('  canary: { source: balancer }\n'))).toEqual([
      'rollout.canary.source: balancer counts per host only with haproxy (balancer kind static does not): use source service or command (FILE:20:21)',
    ]);
  });

  it('refuses a canary that leaves no baseline', async () => {
    expect(await problemsOf(withRollout('  canary: { hosts: 2 }\n'))).toEqual([
      'rollout.canary.hosts: is 2 of the 2 hosts, leaving none on the old release to compare the canary with; use fewer (FILE:20:20)',
    ]);
    expect(await problemsOf(withRollout('  canary: { hosts: "90%" }\n', threeHosts))).toEqual([
      'rollout.canary.hosts: is 3 of the 3 hosts, leaving none on the old release to compare the canary with; use fewer (FILE:21:20)',
    ]);
    const fits = await writeConfig(withRollout('  canary: { hosts: "34%" }\n', threeHosts));
    expect((await loadConfig(fits, { env: {} })).rollout.canary?.hosts).toEqual({
      kind: 'percent',
      percent: 34,
    });
  });
});
