import { OperationError } from '../../errors.js';
import type { VerifyOptions, VerifyReport } from '../../protocol/results.js';
import { describeStop, stopProblems, summarizeVerify } from '../host-actions.js';
import type { HostContext, HostStep, StepVerdict } from './step.js';
import { unlessAborted } from './waiting.js';

/** Which release a step acts on: the one being deployed, or the one a rollback returns to. */
export type Toward = 'release' | 'previous';

function releaseOf(ctx: HostContext, toward: Toward): string {
  if (toward === 'release') return ctx.run.release;
  const previous = ctx.run.liveBefore;
  if (previous === null)
    throw new OperationError(
      'the host ran no release before this rollout: nothing to roll back to',
    );
  return previous;
}

/** Stop what runs and prove it stopped: nothing is started on top of a live process. */
export function stopStep(
  toward: Toward,
  boundMs?: number,
  failure?: (ctx: HostContext, why: string) => Error,
): HostStep {
  return {
    name: 'stop',
    changes: 'stopped',
    ...(boundMs === undefined ? {} : { boundMs }),
    async run(ctx): Promise<StepVerdict> {
      const release = releaseOf(ctx, toward);
      const p = ctx.progress;
      if (toward === 'release') p.stopped = true;
      const report = await ctx.run.agent.run('stop', { release });
      if (report.proven) return describeStop(report);
      if (toward === 'release') p.stopUnproven = true;
      const why = stopProblems(report);
      const error = failure
        ? failure(ctx, why)
        : new OperationError(toward === 'release' ? `${ctx.run.host.name}: ${why}` : why);
      return { ...describeStop(report), error };
    },
  };
}

export function switchStep(toward: Toward): HostStep {
  return {
    name: 'switch',
    changes: 'switched',
    async run(ctx) {
      const release = releaseOf(ctx, toward);
      // sent from here on: a switch whose reply never came may have happened anyway
      if (toward === 'release') ctx.progress.switched = true;
      await ctx.run.agent.run('switch', { release });
      if (toward === 'previous') ctx.progress.returned = true;
    },
  };
}

/** Start every service, or (ifStopped) only what its status says is stopped. */
export function startStep(options: { ifStopped?: boolean } = {}): HostStep {
  return {
    name: 'start',
    changes: 'started',
    async run(ctx) {
      await ctx.run.agent.start(undefined, options.ifStopped ? { ifStopped: true } : {});
    },
  };
}

export interface VerifyStepOptions {
  readonly name: 'verify' | 'confirm';
  readonly boundMs: number;
  readonly successes: number;
  readonly allowDraining: boolean;
  /** an expect_release check accepts an answer naming no release (returning to an old one) */
  readonly releaseOptional?: boolean;
  /** what a failure says, given the services' summary; undefined: the summary alone */
  readonly failure?: (ctx: HostContext, summary: string) => string;
  /** record the report and go on: a later step decides on it (repair) */
  readonly keep?: boolean;
}

export function verifyOptions(ctx: HostContext, o: VerifyStepOptions): VerifyOptions {
  return {
    successes: o.successes,
    timeoutMs: o.boundMs,
    allowDraining: o.allowDraining,
    ...(o.releaseOptional || ctx.run.returning ? { releaseOptional: true } : {}),
  };
}

/**
 * A verify's answer, unless `ctx.cut` aborts first (a second Ctrl-C): it changes
 * nothing, so the walk-back need not wait for it (the agent cuts it short as the
 * session ends).
 */
function unlessCut<T>(ctx: HostContext, answer: Promise<T>): Promise<T> {
  return ctx.cut ? unlessAborted(answer, ctx.cut) : answer;
}

/** Every service answers (`successes` passes in a row), within the bound; it hands on its report. */
export function verifyStep(o: VerifyStepOptions): HostStep<VerifyStepOptions['name']> {
  return {
    name: o.name,
    boundMs: o.boundMs,
    run: async (ctx) =>
      judge(ctx, o, await unlessCut(ctx, ctx.run.agent.run('verify', verifyOptions(ctx, o)))),
  };
}

/** A verify's verdict on its report, which it hands on (a repair decides on it). */
function judge(
  ctx: HostContext,
  o: VerifyStepOptions,
  report: VerifyReport,
): StepVerdict<VerifyStepOptions['name']> {
  if (report.ok || o.keep) return { ok: report.ok, hands: report };
  const summary = summarizeVerify(report);
  return {
    ok: false,
    hands: report,
    error: new OperationError(o.failure ? o.failure(ctx, summary) : summary),
  };
}

/**
 * Confirm, once the host is undrained: the streak of passes started with the
 * undrain (it runs while the balancer's healthy_threshold checks bring the
 * target back), then one more pass with traffic on the services. It is the
 * handshake's last step: the receipt window's end is read beside that pass,
 * the host back in rotation, and kept only if the pass passes (a confirm that
 * fails rolls the host back, and the window then ends after the rollback).
 */
export function confirmStep(o: VerifyStepOptions): HostStep<VerifyStepOptions['name']> {
  return {
    name: o.name,
    boundMs: o.boundMs,
    async run(ctx) {
      const { agent } = ctx.run;
      const streak = ctx.results.get('undrain');
      const passes = await unlessCut(ctx, streak ?? agent.run('verify', verifyOptions(ctx, o)));
      if (!passes.ok) return judge(ctx, o, passes);
      const end = ctx.run.receipt?.readAhead();
      const report = await unlessCut(
        ctx,
        agent.run('verify', { ...verifyOptions(ctx, o), successes: 1 }),
      );
      if (report.ok) end?.keep();
      return judge(ctx, o, report);
    },
  };
}

/** Put the host back in rotation and start confirm's streak beside the balancer's wait: the undrain hands it on. */
export function exposeStep(
  undrain: HostStep<'undrain'>,
  confirm: VerifyStepOptions,
): HostStep<'undrain'> {
  return {
    ...undrain,
    async run(ctx): Promise<StepVerdict<'undrain'>> {
      await undrain.run(ctx);
      ctx.progress.exposed = true;
      // a failure to even send it surfaces at the confirm step, like one of the checks'
      const streak = Promise.resolve().then(() =>
        ctx.run.agent.run('verify', verifyOptions(ctx, confirm)),
      );
      // if await-in fails first, the rollback does not wait for it: a verify runs beside
      // other calls in the agent, and is cut short when the session ends
      streak.catch(() => undefined);
      return { hands: streak };
    },
  };
}
