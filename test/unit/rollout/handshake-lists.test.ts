import { describe, expect, it } from 'vitest';
import { hostActions } from '../../../src/rollout/host-actions.js';
import { handshakeList, repairList } from '../../../src/rollout/handshake/lists.js';
import { runList, runSteps, walkBack } from '../../../src/rollout/handshake/runner.js';
import { listEnd } from '../../../src/rollout/handshake/drain-steps.js';
import type { HeldLock } from '../../../src/agent-client/host-agent.js';
import {
  freshProgress,
  type HostContext,
  type HostStep,
} from '../../../src/rollout/handshake/step.js';
import { StepResults } from '../../../src/rollout/handshake/results.js';
import type { VerifyReport } from '../../../src/protocol/results.js';
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
    results: new StepResults(),
    abort: () => undefined,
  };
  return { f, ctx };
}

/** Mark the handshake reached up to (and including) `last`, as the runner would. */
function reachedUpTo(ctx: HostContext, last: string): void {
  const steps = handshakeList(testConfig(), bounds).steps;
  for (const step of steps) {
    ctx.reached.push(step);
    if (step.name === last) return;
  }
}

const names = (steps: readonly HostStep[]) => steps.map((s) => s.name);

describe('the handshake as a list', () => {
  it('is lock, capacity and on to confirm, each wait held to the timing model’s bound', () => {
    const config = testConfig();
    const list = handshakeList(config, bounds);
    const steps = list.steps;
    expect(steps.map((s) => [s.name, s.boundMs])).toEqual([
      ['lock', undefined],
      ['capacity', undefined],
      ['drain', undefined],
      // the checks' warm-up: 250 ms, then the HTTP check's 2 s timeout at most
      ['warm', 2250],
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
    // beside await-out, waited for by nothing: no line of its own, its time inside await-out's
    expect(steps.filter((s) => s.beside).map((s) => [s.name, s.beside, s.quiet])).toEqual([
      ['warm', 'await-out', true],
    ]);
    // its end: the receipt's close (no line of its own), then the recorded unlock
    expect(list.end.map((s) => [s.name, s.quiet ?? false])).toEqual([
      ['close-receipt', true],
      ['unlock', false],
    ]);
  });
});

describe('the warm step', () => {
  it('is in no list without an HTTP check: nothing to warm', () => {
    const config = testConfig();
    const tcp = {
      ...config,
      services: [{ name: 'db', check: { kind: 'tcp', address: '127.0.0.1:5432', timeout: 1000 } }],
    } as unknown as typeof config;
    expect(names(handshakeList(tcp, bounds).steps)).not.toContain('warm');
  });

  it('asks the host and goes on at once: nothing waits for the warm-up', async () => {
    const { ctx, f } = context();
    const warm = handshakeList(testConfig(), bounds).steps.find((s) => s.name === 'warm')!;
    let answer: () => void = () => undefined;
    f.host(1).answers.warm = () => {
      f.host(1).warmed += 1;
      return new Promise((resolve) => (answer = () => resolve({})));
    };
    await runSteps(ctx, [warm]);
    expect(f.host(1).warmed).toBe(1);
    answer();
    // a host that cannot even be asked fails nothing
    f.host(1).answers.warm = () => Promise.reject(new Error('no session'));
    await runSteps(ctx, [warm]);
    expect(ctx.run.rec.steps).toEqual([]);
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
    // the failure carries its own step's name, not the rollback's
    expect(ctx.progress.step).toBe('rollback-gate');
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

describe('the runner, handing results on', () => {
  const report = (ok: boolean) => ({ ok, services: [] }) as unknown as VerifyReport;
  const verify = (ok: boolean | undefined, quiet = false): HostStep<'verify'> => ({
    name: 'verify',
    ...(quiet ? { quiet: true } : {}),
    run: () => Promise.resolve(ok === undefined ? {} : { hands: report(ok) }),
  });

  it('keeps what a step hands on under its name, for the steps after it, recorded or not', async () => {
    const { ctx } = context();
    const seen: (boolean | undefined)[] = [];
    const reader: HostStep = {
      name: 'switch',
      run: (c) => {
        seen.push(c.results.get('verify')?.ok);
        return Promise.resolve();
      },
    };
    await runSteps(ctx, [reader, verify(false), reader]);
    await runSteps(ctx, [verify(true, true), reader], { record: false });
    expect(seen).toEqual([undefined, false, true]);
    expect(ctx.results.get('await-in')).toBeUndefined();
  });

  it('keeps the last one a step of that name handed: a run that hands nothing leaves it', async () => {
    const { ctx } = context();
    await runSteps(ctx, [verify(false), verify(undefined)]);
    expect(ctx.results.get('verify')?.ok).toBe(false);
  });

  it('keeps what an end step hands on too', async () => {
    const { ctx } = context();
    await runList(ctx, { steps: [], end: [verify(true)] }, { done: () => undefined });
    expect(ctx.results.get('verify')?.ok).toBe(true);
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
    } as unknown as Parameters<typeof repairList>[2];
    const steps = repairList(testConfig(), bounds, status).steps;
    const { ctx } = context();
    ctx.results.keep('verify', { ok: false, services: [] } as unknown as VerifyReport);
    const conditional = steps.filter((s) => s.when).map((s) => [s.name, s.when!(ctx)]);
    expect(conditional).toEqual([
      ['repair-note', true],
      ['stop', true],
      ['switch', true],
      ['start', true],
      ['verify', true],
    ]);
    ctx.results.keep('verify', { ok: true, services: [] } as unknown as VerifyReport);
    expect(steps.filter((s) => s.when?.(ctx)).length).toBe(0);
  });

  it('names each record its own: the note, the gate and the end are no verify, switch or unlock', async () => {
    const status = {
      release: 'r2',
      previous: 'r1',
      draining: { by: 'ci', since: 'x', until: 'y', release: 'r2' },
    } as unknown as Parameters<typeof repairList>[2];
    const list = repairList(testConfig(), bounds, status);
    expect(list.steps.filter((s) => s.quiet).map((s) => s.name)).toEqual([
      'repair-note',
      'repair-gate',
    ]);
    expect(list.end.map((s) => s.name)).toEqual(['close-receipt', 'unlock']);
    const { ctx } = context();
    const gate = list.steps.find((s) => s.name === 'repair-gate')!;
    ctx.results.keep('verify', { ok: false, services: [] } as unknown as VerifyReport);
    const failure = await runSteps(ctx, [gate]).catch((e: unknown) => e);
    expect((failure as Error).message).toMatch(/^web-1 was left drained and does not verify/);
    expect(ctx.progress.step).toBe('repair-gate');
  });
});

/** A lock this run holds: what it was asked, and how its release answers. */
function held(ctx: HostContext, release: () => Promise<void> = () => Promise.resolve()) {
  const asked: string[] = [];
  const lock: HeldLock = {
    release: () => {
      asked.push('release');
      return release();
    },
    audit: (entry) => asked.push(`audit ${entry.step}`),
    lost: new Promise(() => undefined),
  };
  ctx.progress.lock = lock;
  ctx.run.rec.audit = (entry) => lock.audit(entry);
  return asked;
}

describe('the end of a list, the runner’s whatever happened', () => {
  const failing: HostStep = {
    name: 'drain',
    run: () => Promise.resolve({ error: new Error('refused') }),
  };

  it('after a success: closes the receipt into the audit, then unlocks, recorded', async () => {
    const { ctx } = context();
    const asked = held(ctx);
    Object.assign(ctx.run, { receipt: { close: () => Promise.resolve('saw 3 requests') } });
    const result = await runList(
      ctx,
      { steps: [], end: listEnd() },
      { done: () => 'done', failed: () => Promise.resolve('failed') },
    );
    expect(result).toBe('done');
    expect(asked).toEqual(['audit receipt', 'release', 'audit unlock']);
    expect(ctx.run.rec.steps.map((s) => [s.step, s.ok])).toEqual([['unlock', true]]);
    expect(ctx.run.rec.audit).toBeUndefined();
    expect(ctx.progress.lock).toBeUndefined();
  });

  it('after an interrupt: `failed` first (the walk-back needs the lock), then the unlock, aborted or not', async () => {
    const { ctx } = context();
    const asked = held(ctx);
    const aborted = new AbortController();
    aborted.abort();
    ctx.signal = aborted.signal;
    const result = await runList(
      ctx,
      { steps: [failing], end: listEnd({ quiet: true }) },
      {
        done: () => 'done',
        failed: (error) => {
          asked.push(`failed ${(error as Error).message}`);
          return Promise.resolve('failed');
        },
      },
    );
    expect(result).toBe('failed');
    // interrupted before the drain: nothing ran, and the quiet unlock is no line
    expect(asked).toEqual(['failed This operation was aborted', 'release']);
    expect(ctx.run.rec.steps).toEqual([]);
    expect(ctx.run.rec.audit).toBeUndefined();
  });

  it('without `failed`, a failure is what the list throws; the lock still goes', async () => {
    const { ctx } = context();
    const asked = held(ctx);
    const thrown = await runList(
      ctx,
      { steps: [failing], end: listEnd() },
      { done: () => 'done' },
    ).catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('refused');
    expect(asked).toEqual(['audit drain', 'release', 'audit unlock']);
  });

  it('with record: false (a repair), neither its steps nor its end are recorded; the lock still goes', async () => {
    const { ctx } = context();
    const asked = held(ctx);
    const loud: HostStep = { name: 'switch', run: () => Promise.resolve() };
    await runList(
      ctx,
      { steps: [loud], end: listEnd() },
      { done: () => undefined },
      { record: false },
    );
    expect(ctx.run.rec.steps).toEqual([]);
    expect(asked).toEqual(['release']);
  });

  it('a lost lock is not released again, nor its receipt closed; the audit sink still ends', async () => {
    const { ctx } = context();
    const asked = held(ctx);
    ctx.progress.lockLost = true;
    let closed = false;
    Object.assign(ctx.run, {
      receipt: {
        close: () => {
          closed = true;
          return Promise.resolve('x');
        },
      },
    });
    await runList(
      ctx,
      { steps: [], end: listEnd() },
      { done: () => undefined, failed: () => Promise.resolve(undefined) },
    );
    expect(asked).toEqual([]);
    expect(closed).toBe(false);
    expect(ctx.run.rec.steps).toEqual([]);
    expect(ctx.run.rec.audit).toBeUndefined();
  });

  const throwing: HostStep = {
    name: 'unlock',
    run: () => Promise.reject(new Error('socket closed')),
  };
  const said = (host: string) => [
    {
      level: 'error',
      event: 'unlock',
      message: "unlock failed at the end of the host's run: socket closed",
      host,
    },
  ];

  it('an end step that throws is recorded and said; the list’s own error stands and the rest of the end runs', async () => {
    const { ctx, f } = context();
    const asked = held(ctx);
    const thrown = await runList(
      ctx,
      { steps: [failing], end: [throwing, ...listEnd()] },
      { done: () => 'done' },
    ).catch((e: unknown) => e);
    expect((thrown as Error).message).toBe('refused');
    expect(asked).toEqual(['audit drain', 'audit unlock', 'release', 'audit unlock']);
    expect(ctx.run.rec.steps.map((s) => [s.step, s.ok, s.detail])).toEqual([
      ['drain', true, undefined],
      ['unlock', false, 'socket closed'],
      ['unlock', true, undefined],
    ]);
    expect(f.log.events.filter((e) => e.event === 'unlock')).toEqual(said(ctx.run.host.name));
    expect(ctx.run.rec.audit).toBeUndefined();
  });

  it('an end step that throws after a success, unrecorded (a repair), is still said; the result stands', async () => {
    const { ctx, f } = context();
    const asked = held(ctx);
    const result = await runList(
      ctx,
      { steps: [], end: [throwing, ...listEnd()] },
      { done: () => 'done' },
      { record: false },
    );
    expect(result).toBe('done');
    expect(asked).toEqual(['release']);
    expect(ctx.run.rec.steps).toEqual([]);
    expect(f.log.events.filter((e) => e.event === 'unlock')).toEqual(said(ctx.run.host.name));
  });

  it('an unlock that fails is said and recorded, never thrown over what came before', async () => {
    const { ctx, f } = context();
    held(ctx, () => Promise.reject(new Error('connection reset')));
    const result = await runList(
      ctx,
      { steps: [], end: listEnd() },
      { done: () => 'done', failed: () => Promise.resolve('failed') },
    );
    expect(result).toBe('done');
    expect(ctx.run.rec.steps.map((s) => [s.step, s.ok, s.detail])).toEqual([
      ['unlock', false, 'connection reset'],
    ]);
    expect(f.log.events.filter((e) => e.event === 'unlock')).toEqual([
      {
        level: 'error',
        event: 'unlock',
        message: 'could not release the host lock cleanly: connection reset',
        host: ctx.run.host.name,
      },
    ]);
  });
});
