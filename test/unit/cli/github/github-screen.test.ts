import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyLocator } from '../../../../src/cli/github/key-line.js';
import { GithubScreen } from '../../../../src/cli/github/github-screen.js';
import { stepSummary } from '../../../../src/cli/github/summary.js';
import { ProgressReporter } from '../../../../src/cli/progress/reporter.js';
import { detectStyle } from '../../../../src/cli/progress/style.js';
import type { LogEvent } from '../../../../src/log.js';
import type { RolloutResult, StepRecord } from '../../../../src/rollout/types.js';
import { FakeClock } from '../../../support/fake-clock.js';
import { end, FakeTerm, ManualTicker, start } from '../progress/fake-term.js';
import { scratchDir } from '../../../support/scratch.js';

const wave = (n: number, of: number, hosts: [string, string | null][]): LogEvent => ({
  level: 'debug',
  event: 'wave',
  message: `wave ${n} of ${of}: ${hosts.map(([h]) => h).join(', ')}`,
  fields: {
    wave: n,
    waves: of,
    hosts: hosts.map(([host, releaseBefore]) => ({ host, releaseBefore })),
  },
});

const step = (name: StepRecord['step'], ms: number, ok = true): StepRecord => ({
  step: name,
  offset_ms: 0,
  duration_ms: ms,
  ok,
});

function setup(env: Record<string, string> = { GITHUB_ACTIONS: 'true', LANG: 'C.UTF-8' }) {
  const err = new FakeTerm(false);
  const out = new FakeTerm(false);
  const summaries: string[] = [];
  const style = detectStyle(env, err);
  const screen = new GithubScreen({
    err,
    out,
    style,
    keyLine: (key) => (key === 'drain.overlap' ? { file: 'deploy.yml', line: 9 } : undefined),
    appendSummary: (md) => summaries.push(md),
  });
  const clock = new FakeClock();
  const ticker = new ManualTicker();
  const reporter = new ProgressReporter({
    screen,
    style,
    now: () => clock.now(),
    ticker,
    verbose: false,
  });
  return { err, out, screen, reporter, summaries, clock, ticker };
}

describe('GitHub Actions log', () => {
  it('puts a one-host wave in one group named for the host, closed before the result', () => {
    const { err, out, screen, reporter } = setup();
    reporter.emit(wave(1, 2, [['web-1', 'r1']]));
    reporter.emit(start('web-1', 'drain'));
    reporter.emit(end('web-1', 'drain'));
    reporter.emit(wave(2, 2, [['web-2', 'r1']]));
    reporter.emit(start('web-2', 'lock'));
    screen.text('✓ web-1 deployed');
    expect(err.all.split('\n')).toEqual([
      '::group::web-1 (wave 1 of 2)',
      'wave 1 of 2: web-1',
      'web-1: drain…',
      'web-1: drain ✓ 1.0s',
      '::endgroup::',
      '::group::web-2 (wave 2 of 2)',
      'wave 2 of 2: web-2',
      'web-2: lock…',
      '::endgroup::',
      '',
    ]);
    expect(out.all).toBe('✓ web-1 deployed\n');
  });

  it('groups a wave of several hosts, then gives each host its own group of its lines', () => {
    const { err, screen, reporter } = setup();
    reporter.emit(
      wave(1, 1, [
        ['web-1', 'r1'],
        ['web-2', 'r1'],
      ]),
    );
    reporter.emit(start('web-1', 'drain'));
    reporter.emit(start('web-2', 'drain'));
    reporter.emit(end('web-2', 'drain'));
    screen.close();
    expect(err.all.split('\n')).toEqual([
      '::group::wave 1 of 1: web-1, web-2',
      'wave 1 of 1: web-1, web-2',
      'web-1: drain…',
      'web-2: drain…',
      'web-2: drain ✓ 1.0s',
      '::endgroup::',
      '::group::web-1',
      'web-1: drain…',
      '::endgroup::',
      '::group::web-2',
      'web-2: drain…',
      'web-2: drain ✓ 1.0s',
      '::endgroup::',
      '',
    ]);
  });

  it('turns an invariant warning into an annotation on the deploy.yml line of its key', () => {
    const { err, reporter } = setup();
    reporter.emit({
      level: 'warn',
      event: 'invariant',
      message: 'drain-before-stop: overlap 1s < 2s: set drain.overlap to at least 2s',
      fields: { id: 'drain-before-stop', key: 'drain.overlap' },
    });
    reporter.emit({ level: 'error', event: 'unlock', message: '50% lost', host: 'web-1' });
    expect(err.all).toBe(
      '::warning title=invariant drain-before-stop,file=deploy.yml,line=9::drain-before-stop: overlap 1s < 2s: set drain.overlap to at least 2s\n' +
        '::error::web-1: 50%25 lost\n',
    );
  });

  it('prints a heartbeat inside the group while a host waits', () => {
    const { err, reporter, clock, ticker } = setup();
    reporter.emit(wave(1, 1, [['web-1', 'r1']]));
    reporter.emit(start('web-1', 'await-out', 20_000));
    clock.advance(10_000);
    ticker.fire();
    expect(err.all.split('\n').at(-2)).toBe('web-1  await-out  10s / 20s');
    expect(err.all).not.toContain('\u001b');
  });

  it('annotates the failed host and appends the summary table at the end', () => {
    const { err, screen, reporter, summaries } = setup();
    reporter.emit(
      wave(1, 2, [
        ['web-1', 'r1'],
        ['web-2', null],
      ]),
    );
    const result: RolloutResult = {
      ok: false,
      release: 'r2',
      elapsed_ms: 12_300,
      notReached: ['web-3'],
      hosts: [
        {
          host: 'web-1',
          result: 'deployed',
          steps: [step('lock', 12), step('await-out', 4100)],
          leftDrained: false,
        },
        {
          host: 'web-2',
          result: 'rolled-back',
          steps: [step('switch', 20), step('verify', 3000, false), step('rollback', 900)],
          stoppedAt: 'verify',
          error: 'web-2: release r2 failed verify: web ✗ status-500',
          leftDrained: false,
        },
      ],
    };
    screen.finish(result);
    expect(err.all).toContain(
      '::endgroup::\n::error title=web-2 rolled-back::web-2: release r2 failed verify: web ✗ status-500 (stopped at verify)\n',
    );
    expect(summaries).toEqual([
      [
        '### deploy rollout r2: ✗ rollout failed in 12s',
        '',
        '| Host | Result | Release before | Release after | Steps |',
        '| --- | --- | --- | --- | --- |',
        '| web-1 | ✓ deployed | r1 | r2 | lock 12ms · await-out 4.1s |',
        '| web-2 | ✗ rolled-back | – | unknown | switch 20ms · verify 3.0s ✗ · rollback 900ms |',
        '| web-3 | not reached | – | unchanged |  |',
        '',
        '- web-2: release r2 failed verify: web ✗ status-500',
        '',
        '```mermaid',
        'gantt',
        '  title r2 — rollout failed in 12s',
        '  dateFormat x',
        '  axisFormat %M:%S',
        '  section web-1',
        '    out 4.1s :done, 0, 4100',
        '  section web-2',
        '    restart 3.0s :crit, 0, 3000',
        '    rollback 900ms :done, 0, 900',
        '```',
        '',
      ].join('\n'),
    ]);
  });
});

describe('the summary table', () => {
  it('keeps a cell with | or a newline on its row', () => {
    const md = stepSummary(
      {
        ok: false,
        release: 'r2',
        elapsed_ms: 10,
        notReached: [],
        hosts: [{ host: 'a', result: 'failed', steps: [], error: 'x | y\nz', leftDrained: true }],
      },
      new Map([['a', 'r1']]),
    );
    expect(md).toContain('| a | ✗ failed, left drained | r1 | r1 |  |');
    expect(md).toContain('- x \\| y z');
  });

  it('names a host skipped as unreachable, why, and that it is not on the release', () => {
    const md = stepSummary(
      {
        ok: true,
        release: 'r42',
        elapsed_ms: 10,
        notReached: [],
        hosts: [
          { host: 'web-1', result: 'deployed', steps: [step('switch', 5)], leftDrained: false },
        ],
        skipped: [{ host: 'web-17', reason: 'connection refused' }],
      },
      new Map([['web-1', 'r41']]),
    );
    expect(md).toContain('### deploy rollout r42: ✓ deployed, 1 host skipped in');
    expect(md).toContain('| web-1 | ✓ deployed | r41 | r42 | switch 5ms |');
    expect(md).toContain(
      '| web-17 | ✗ unreachable (connection refused): skipped, not on r42 | unknown: not reached | unchanged |  |',
    );
  });

  it('through several balancers, gives each its own column: how long it took to have the host out and back', () => {
    const wait = (name: 'await-out' | 'await-in', balancers: Record<string, number | null>) => ({
      ...step(name, 9000),
      bound_ms: 11_000,
      balancers,
    });
    const md = stepSummary(
      {
        ok: false,
        release: 'r2',
        elapsed_ms: 10,
        notReached: ['c'],
        hosts: [
          {
            host: 'a',
            result: 'deployed',
            steps: [
              wait('await-out', { 'lb-a': 2000, 'lb-b': 9000 }),
              wait('await-in', { 'lb-a': 2000, 'lb-b': 4000 }),
            ],
            leftDrained: false,
          },
          {
            host: 'b',
            result: 'failed',
            steps: [{ ...wait('await-out', { 'lb-a': 2000, 'lb-b': null }), ok: false }],
            leftDrained: false,
          },
        ],
      },
      new Map([['a', 'r1']]),
    );
    const lines = md.split('\n');
    expect(lines).toContain(
      '| Host | Result | Release before | Release after | lb-a | lb-b | Steps |',
    );
    expect(lines).toContain('| --- | --- | --- | --- | --- | --- | --- |');
    expect(md).toContain('| a | ✓ deployed | r1 | r2 | out 2.0s · in 2.0s | out 9.0s · in 4.0s |');
    expect(md).toContain('| b | ✗ failed | – | unknown | out 2.0s | not out within 11s ✗ |');
    expect(md).toContain('| c | not reached | – | unchanged | – | – |  |');
  });
});

describe("deploy.yml's line for a key", () => {
  it('finds the line of a key that is written, and none for a default', async () => {
    const dir = await scratchDir('key-line-');
    const file = path.join(dir, 'deploy.yml');
    await writeFile(file, 'hosts: []\ndrain:\n  max_request: 1s\n  overlap: 2s\n');
    const locate = keyLocator(file, dir);
    expect(locate('drain.overlap')).toEqual({ file: 'deploy.yml', line: 4 });
    expect(locate('drain.stop_timeout')).toBeUndefined();
    expect(locate('rollout.min_healthy')).toBeUndefined();
  });
});

describe('the summary of a judged rollout', () => {
  it("says the canary's verdict with its numbers and the balancer's receipt, per host and in all", () => {
    const md = stepSummary(
      {
        ok: false,
        release: 'r2',
        elapsed_ms: 10,
        notReached: ['b'],
        hosts: [{ host: 'a', result: 'deployed', steps: [], leftDrained: false }],
        judgements: [
          {
            kind: 'canary',
            hosts: ['a'],
            passed: false,
            reason:
              'canary 212 errors of 1040 requests (20.4 %), baseline 3 errors of 3100 requests (0.097 %): conclusively worse',
            canary: { errors: 212, requests: 1040 },
            baseline: { errors: 3, requests: 3100 },
            early: true,
            elapsedMs: 5000,
          },
        ],
        receipt: {
          source: 'haproxy be_api',
          hosts: [{ host: 'a', requests: 9329, failed: 0 }],
          total: { requests: 27823, failed: 212 },
        },
      },
      new Map([['a', 'r1']]),
    );
    // a host with no step of its handshake draws no gantt
    expect(md).not.toContain('mermaid');
    expect(md.split('\n').slice(-5)).toEqual([
      '',
      '- canary ✗ failed: canary 212 errors of 1040 requests (20.4 %), baseline 3 errors of 3100 requests (0.097 %): conclusively worse',
      '- haproxy be_api saw 0 failed of 9 329 requests to a during its deploy',
      '- haproxy be_api saw 212 failed of 27 823 requests in all during the rollout',
      '',
    ]);
  });
});
