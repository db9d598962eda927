import { messageOf } from '../../errors.js';
import type { StepName } from '../types.js';
import type { HostContext, HostList, HostStep, StepVerdict } from './step.js';

export interface RunOptions {
  /** false: the steps are parts of one recorded step (a rollback), not recorded one by one */
  readonly record?: boolean;
}

/**
 * Run a list of steps in order: each is marked reached before it runs (a step
 * that half-happened still needs its undo), recorded with its bound, and the
 * first failure (a throw, or a verdict's `error`) ends the list by throwing;
 * `ok: false` alone is recorded and the list goes on (a wait whose outcome a
 * later step judges). What a step hands on (its verdict's `hands`) is kept
 * under its name for the steps after it (`ctx.results`). The one way every
 * handshake runs.
 */
export async function runSteps(
  ctx: HostContext,
  steps: readonly HostStep[],
  { record = true }: RunOptions = {},
): Promise<void> {
  for (const step of steps) {
    ctx.signal.throwIfAborted();
    if (step.when && !step.when(ctx)) continue;
    ctx.progress.step = step.name;
    ctx.reached.push(step);
    const verdict = await runOne(ctx, step, record);
    if (verdict.error) throw verdict.error;
    step.after?.(ctx);
  }
}

/** Run one step, recorded or not; what it hands on is kept under its name for later steps. */
async function runOne<N extends StepName>(
  ctx: HostContext,
  step: HostStep<N>,
  record: boolean,
): Promise<StepVerdict<N>> {
  const run = async (): Promise<StepVerdict<N>> => (await step.run(ctx)) ?? {};
  const verdict =
    record && !step.quiet
      ? await ctx.run.rec.step(step.name, run, (v) => v, step.boundMs)
      : await run();
  ctx.results.keep(step.name, verdict.hands);
  return verdict;
}

/** How a list's run turns out: what its success gives, and what a failure gives (none: it throws). */
export interface ListOutcome<T> {
  done(): T;
  failed?(error: unknown): Promise<T>;
}

/**
 * Run a list: its steps (runSteps), and after them, whatever happened (a
 * success, a failure once `failed` walked it back, an interrupt, a lost
 * lock), its end (runEnd): every end step runs, aborted or not, and the
 * recorder's audit through the lock's holder ends with it. The one place a
 * list ends.
 */
export async function runList<T>(
  ctx: HostContext,
  list: HostList,
  outcome: ListOutcome<T>,
  { record = true }: RunOptions = {},
): Promise<T> {
  try {
    await runSteps(ctx, list.steps, { record });
    return outcome.done();
  } catch (error) {
    if (!outcome.failed) throw error;
    return await outcome.failed(error);
  } finally {
    await runEnd(ctx, list.end, record);
  }
}

/**
 * A list's end: every end step runs, and one that throws is recorded (when
 * recording) and said, never thrown over what the list came to (its result,
 * or its own first error).
 */
async function runEnd(ctx: HostContext, end: readonly HostStep[], record: boolean): Promise<void> {
  for (const step of end) {
    if (step.when && !step.when(ctx)) continue;
    try {
      await runOne(ctx, step, record);
    } catch (error) {
      ctx.run.deps.log.emit({
        level: 'error',
        event: step.name,
        message: `${step.name} failed at the end of the host's run: ${messageOf(error)}`,
        host: ctx.run.host.name,
      });
    }
  }
  ctx.run.rec.audit = undefined;
}

export interface WalkBack {
  /** the steps that take back what was reached, latest first */
  readonly steps: readonly HostStep[];
  /** a step whose undo returns to the previous release was reached, and rolling back is off */
  readonly held: boolean;
}

/**
 * Walk back from the last step reached: each reached step's undo, latest
 * first. A step whose undo is a rollback stops the walk when rollbacks are
 * off (--no-rollback): what came before it stays as it is, for a person.
 */
export function walkBack(ctx: HostContext): WalkBack {
  const steps: HostStep[] = [];
  for (const step of [...ctx.reached].reverse()) {
    if (!step.undo) continue;
    if (step.rollsBack && !ctx.run.rollback) return { steps, held: true };
    steps.push(...step.undo(ctx));
  }
  return { steps, held: false };
}
