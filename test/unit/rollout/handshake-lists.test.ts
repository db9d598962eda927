import { describe, expect, it } from 'vitest';
import { hostActions } from '../../../src/rollout/host-actions.js';
import { handshakeSteps, repairSteps } from '../../../src/rollout/handshake/lists.js';
import { runSteps, walkBack } from '../../../src/rollout/handshake/runner.js';
import {
  freshProgress,
  type HostContext,
  type HostStep,
} from '../../../src/rollout/handshake/step.js';
import { StepRecorder } from '../../../src/rollout/recorder.js';
import type { Bounds } from '../../../src/rollout/rotation.js';
import { testConfig } from '../../support/config.js';
import { fleet } from '../../support/rollout-fleet.js';

const bounds: Bounds = { awaitOut: 12_000, awaitIn: 12_000, interval: 5000 };

function context(options: { rollback?: boolean; liveBefore?: string | null } = {}) {
  const f = fleet();
  const host = f.deps.config.hosts[0]!;
  const agent = f.host(1);
  const ctx: HostContext = {
    run: {
      deps: f.deps,
      host,
      agent,
      release: 'r2',
      rollback: options.rollback ?? true,
      bounds,
      rec: new StepRecorder(host.name, 'r2', 'ci', f.clock, f.log, 0),
      leaseMs: 60_000,
      liveBefore: options.liveBefore === undefined ? 'r1' : options.liveBefore,
    },
    actions: hostActions(f.deps, host, agent, 'r2', 60_000),
    progress: freshProgress(),
    signal: new AbortController().signal,
    reached: [],
    abort: () => undefined,
  };
  return { f, ctx };
}

/** Mark the handshake reached up to (and including) `last`, as the runner would. */
function reachedUpTo(ctx: HostContext, last: string): void {
  const steps = handshakeSteps(testConfig(), bounds);
  for (const step of steps) {
    ctx.reached.push(step);
    if (step.name === last) return;
  }
}

const names = (steps: readonly HostStep[]) => steps.map((s) => s.name);

describe('the handshake as a list', () => {
  it('is lock, capacity and on to confirm, each wait held to the timing model’s bound', () => {
    const config = testConfig();
    const steps = handshakeSteps(config, bounds);
    expect(steps.map((s) => [s.name, s.boundMs])).toEqual([
      ['lock', undefined],
      ['capacity', undefined],
      ['drain', undefined],
      ['await-out', bounds.awaitOut],
      ['overlap', config.drain.overlap],
      ['stop', config.drain.stopTimeout],
      ['switch', undefined],
      ['start', undefined],
      ['verify', config.rollout.verifyTimeout],
      ['undrain', undefined],
      ['await-in', bounds.awaitIn],
      ['confirm', config.rollout.verifyTimeout],
    ]);
    expect(steps.filter((s) => s.rollsBack).map((s) => s.name)).toEqual(['stop']);
  });
});

describe('walking back from the last step reached', () => {
  it('before stop, only undrains: the old release never stopped serving', () => {
    const { ctx } = context();
    reachedUpTo(ctx, 'overlap');
    ctx.progress.drained = true;
    expect(walkBack(ctx)).toMatchObject({ held: false });
    expect(names(walkBack(ctx).steps)).toEqual(['undrain']);
  });

  it('after a failed verify, goes back to the previous release and undrains only once it verifies', () => {
    const { ctx } = context();
    reachedUpTo(ctx, 'verify');
    Object.assign(ctx.progress, { drained: true, stopped: true, switched: true });
    expect(names(walkBack(ctx).steps)).toEqual([
      'stop',
      'switch',
      'start',
      'verify',
      'undrain',
      'await-in',
    ]);
  });

  it('after confirm, takes the exposed release out and lets it drain before stopping it', () => {
    const { ctx } = context();
    reachedUpTo(ctx, 'confirm');
    Object.assign(ctx.progress, { stopped: true, switched: true, exposed: true });
    expect(names(walkBack(ctx).steps)).toEqual([
      'drain',
      'await-out',
      'overlap',
      'stop',
      'switch',
      'start',
      'verify',
      'undrain',
      'await-in',
    ]);
  });

  it('after a stop that proved nothing and switched nothing, starts again only what stopped', async () => {
    const { ctx, f } = context();
    reachedUpTo(ctx, 'stop');
    Object.assign(ctx.progress, { drained: true, stopped: true, stopUnproven: true });
    const back = walkBack(ctx).steps;
    expect(names(back)).toEqual(['start', 'verify', 'undrain', 'await-in']);
    await runSteps(ctx, back, { record: false });
    expect(f.host(1).calls).toEqual(['start if-stopped', 'verify', 'undrain']);
  });

  it('with rollbacks off, takes an exposed release out again and holds there', () => {
    const { ctx } = context({ rollback: false });
    reachedUpTo(ctx, 'await-in');
    Object.assign(ctx.progress, { stopped: true, switched: true, exposed: true });
    expect(walkBack(ctx)).toMatchObject({ held: true });
    expect(names(walkBack(ctx).steps)).toEqual(['drain']);
  });

  it('refuses to roll back a host that ran no release before', async () => {
    const { ctx } = context({ liveBefore: null });
    reachedUpTo(ctx, 'verify');
    Object.assign(ctx.progress, { drained: true, stopped: true, switched: true });
    const failure = await runSteps(ctx, walkBack(ctx).steps, { record: false }).catch(
      (e: unknown) => e,
    );
    expect((failure as Error).message).toBe(
      'the host ran no release before this rollout: nothing to roll back to',
    );
  });
});

describe('the runner', () => {
  it('records each step, skips one whose condition fails, and fails on a verdict error after recording it', async () => {
    const { ctx } = context();
    const step = (name: 'drain' | 'stop' | 'switch', verdict = {}, when?: boolean): HostStep => ({
      name,
      run: () => Promise.resolve(verdict),
      ...(when === undefined ? {} : { when: () => when }),
    });
    const failure = await runSteps(ctx, [
      step('drain', { ok: false, detail: 'judged later' }),
      step('switch', {}, false),
      step('stop', { error: new Error('not proven') }),
      step('switch'),
    ]).catch((e: unknown) => e);
    expect((failure as Error).message).toBe('not proven');
    expect(ctx.run.rec.steps.map((s) => [s.step, s.ok])).toEqual([
      ['drain', false],
      ['stop', true],
    ]);
    expect(names(ctx.reached)).toEqual(['drain', 'stop']);
    expect(ctx.progress.step).toBe('stop');
  });
});

describe('the runner, recording', () => {
  it('records nothing with record: false, and never a quiet step', async () => {
    const { ctx } = context();
    const quiet: HostStep = { name: 'unlock', quiet: true, run: () => Promise.resolve() };
    const loud: HostStep = { name: 'switch', run: () => Promise.resolve() };
    await runSteps(ctx, [loud, quiet], { record: false });
    expect(ctx.run.rec.steps).toEqual([]);
    await runSteps(ctx, [loud, quiet]);
    expect(ctx.run.rec.steps.map((s) => s.step)).toEqual(['switch']);
  });
});

describe('repair as a list built from the host’s status', () => {
  it('switches back only when what runs does not verify and the marker’s rollout had switched', () => {
    const status = {
      release: 'r2',
      previous: 'r1',
      draining: { by: 'ci', since: 'x', until: 'y', release: 'r2' },
    } as unknown as Parameters<typeof repairSteps>[2];
    const steps = repairSteps(testConfig(), bounds, status);
    const { ctx } = context();
    ctx.verified = { ok: false, services: [] } as unknown as HostContext['verified'];
    const conditional = steps.filter((s) => s.when).map((s) => [s.name, s.when!(ctx)]);
    expect(conditional).toEqual([
      ['switch', true],
      ['stop', true],
      ['switch', true],
      ['start', true],
      ['verify', true],
    ]);
    ctx.verified = { ok: true, services: [] } as unknown as HostContext['verified'];
    expect(steps.filter((s) => s.when?.(ctx)).length).toBe(0);
  });
});
