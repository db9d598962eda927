import type { VerifyReport } from '../../protocol/results.js';
import type { StepName } from '../types.js';

/**
 * What a step hands on to the steps after it, by the name of the step that
 * produced it: a step returns it in its verdict (`hands`), the runner keeps
 * it, and a later step asks for it by that name (`ctx.results.get('verify')`).
 * A step named here can hand on only its own entry's type; the others, nothing.
 */
export interface Handed {
  /** a deploy's undrain (exposeStep): confirm's streak of passes, begun as the host is undrained */
  readonly undrain: Promise<VerifyReport>;
  /** what the verify answered (a repair decides on it) */
  readonly verify: VerifyReport;
  readonly confirm: VerifyReport;
  /** whether the balancer put the host back in rotation within await-in's bound */
  readonly 'await-in': boolean;
}

type HandingStep = keyof Handed;

/** What a step named N may hand on: its entry in Handed, or nothing. */
export type HandOf<N extends StepName> = N extends HandingStep ? Handed[N] : never;

/** The results one run of a list has handed on so far: the last of each step's name. */
export class StepResults {
  private readonly kept = new Map<StepName, unknown>();

  /** The runner's: what the step named `step` just handed on (nothing: the earlier one stays). */
  keep<N extends StepName>(step: N, hands: HandOf<N> | undefined): void {
    if (hands !== undefined) this.kept.set(step, hands);
  }

  /** What the last run of the step named `step` handed on; undefined before it handed any. */
  get<N extends HandingStep>(step: N): Handed[N] | undefined {
    // kept only by `keep`, which types the value by the same name
    return this.kept.get(step) as Handed[N] | undefined;
  }
}
