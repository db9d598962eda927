import type { Config } from '../../config/types.js';
import { BlockedError, OperationError } from '../../errors.js';
import type { HostStatus } from '../../protocol/results.js';
import { summarizeVerify } from '../host-actions.js';
import type { Bounds } from '../rotation.js';
import { stepBounds, warmBoundMs, type StepBounds } from '../../timing/step-bounds.js';
import { capacityStep } from './capacity-step.js';
import {
  awaitStep,
  drainStep,
  inMessage,
  listEnd,
  lockStep,
  outMessage,
  overlapStep,
  redrainStep,
  undrainStep,
  warmStep,
} from './drain-steps.js';
import {
  confirmStep,
  exposeStep,
  startStep,
  stopStep,
  switchStep,
  verifyStep,
  type VerifyStepOptions,
} from './release-steps.js';
import type { HostContext, HostList, HostStep } from './step.js';

/**
 * A host's deploy, as data: lock → capacity (the guard again, with the lock
 * held: capacity-step.ts) → drain → warm (the checks' warm-up, beside
 * await-out; none without an HTTP check) → await-out → overlap → stop → switch
 * → start → verify → undrain → await-in → confirm, and its end (listEnd: the
 * unlock), which the runner runs whatever happened. Each change carries its undo, so a failure walks
 * back from the last step reached (runner.ts walkBack): before `stop` that is
 * an undrain; from `stop` on, the same steps toward the previous release.
 * Pure: the dry run prints this list with its bounds.
 */
export function handshakeList(config: Config, bounds: Bounds): HostList {
  return { steps: handshakeSteps(config, bounds), end: listEnd() };
}

function handshakeSteps(config: Config, bounds: Bounds): HostStep[] {
  const bound = stepBounds(config, bounds);
  const warm = warmBoundMs(config.services);
  const { rollout } = config;
  const confirm: VerifyStepOptions = {
    name: 'confirm',
    boundMs: bound.confirm,
    successes: rollout.verifySuccesses,
    allowDraining: false,
    failure: (ctx, summary) =>
      `${ctx.run.host.name}: release ${ctx.run.release} failed to confirm: ${summary}`,
  };
  return [
    lockStep('rollout', (ctx) => `release ${ctx.run.release} by ${ctx.run.deps.who}`),
    capacityStep(),
    {
      ...drainStep(),
      undo: (ctx) => (ctx.progress.stopped ? putBack(bound) : [undrainStep()]),
    },
    ...(warm > 0 ? [warmStep(warm)] : []),
    awaitStep('out', bound['await-out'], outMessage),
    overlapStep(bound.overlap),
    {
      ...stopStep('release', bound.stop),
      rollsBack: true,
      undo: (ctx) => returnToPrevious(ctx, bound),
    },
    switchStep('release'),
    startStep(),
    verifyStep({
      name: 'verify',
      boundMs: bound.verify,
      successes: 1,
      allowDraining: true,
      failure: (ctx, summary) =>
        `${ctx.run.host.name}: release ${ctx.run.release} failed verify: ${summary}`,
    }),
    {
      ...exposeStep(undrainStep(), confirm),
      // the failed release is taken out again before anything else
      undo: (ctx) => (ctx.progress.drained ? [] : [redrainStep()]),
    },
    awaitStep('in', bound['await-in'], inMessage),
    confirmStep(confirm),
  ];
}

/**
 * The walk-back of `stop`: bring the release that ran before up again. If the
 * new one was exposed, it drains out first (never stop what the balancer still
 * routes to). A stop that proved nothing and switched nothing left the old
 * release running in part: start again only what its status says is stopped.
 */
function returnToPrevious(ctx: HostContext, bound: StepBounds): HostStep[] {
  const p = ctx.progress;
  if (p.stopUnproven && !p.switched) {
    if (ctx.run.liveBefore === null)
      return [
        rollbackGate(
          'the services found running before the first release did not all stop, and no release ran before to start again: stop them by hand, then run the rollout again',
        ),
      ];
    return [startStep({ ifStopped: true })];
  }
  if (ctx.run.liveBefore === null)
    return [rollbackGate('the host ran no release before this rollout: nothing to roll back to')];
  const drainOut = p.exposed
    ? [
        awaitStep(
          'out',
          bound['await-out'],
          ({ run }) => `${run.host.target} is still in rotation after the drain; not stopping it`,
        ),
        overlapStep(bound.overlap),
      ]
    : [];
  return [...drainOut, stopStep('previous'), switchStep('previous'), startStep()];
}

/** The walk-back of `drain` once the host was stopped: undrain only when what runs verifies. */
function putBack(bound: StepBounds): HostStep[] {
  return [
    verifyStep({
      name: 'verify',
      boundMs: bound.verify,
      successes: 1,
      allowDraining: true,
      // the release rolled back to may predate x-release; another id still fails
      releaseOptional: true,
    }),
    undrainStep(),
    awaitStep('in', bound['await-in'], undefined),
  ];
}

/** The rollback's gate: nothing to go back to, so the walk-back stops here, with why. */
function rollbackGate(message: string): HostStep<'rollback-gate'> {
  return {
    name: 'rollback-gate',
    quiet: true,
    run: () => Promise.resolve({ error: new OperationError(message) }),
  };
}

/**
 * Repairing what an interrupted rollout left (a drain marker, nobody holding
 * the lock), as a list built from the host's status: verify what runs; if it
 * fails and the marker's rollout had switched, back to the previous release
 * first; undrain only what verifies.
 */
export function repairList(config: Config, bounds: Bounds, status: HostStatus): HostList {
  return { steps: repairSteps(config, bounds, status), end: listEnd() };
}

function repairSteps(config: Config, bounds: Bounds, status: HostStatus): HostStep[] {
  const marker = status.draining;
  const previous = status.previous;
  const switchedByRollout = marker?.release !== undefined && marker.release === status.release;
  const bound = stepBounds(config, bounds);
  const verify: VerifyStepOptions = {
    name: 'verify',
    boundMs: bound.verify,
    successes: 1,
    allowDraining: true,
    // what it repairs to may be a release from before x-release; another id still fails
    releaseOptional: true,
    keep: true,
  };
  const back = (ctx: HostContext): boolean =>
    ctx.results.get('verify')?.ok === false &&
    switchedByRollout &&
    previous !== null &&
    previous !== status.release;
  const onlyIfBack = (step: HostStep): HostStep => ({ ...step, when: back });
  return [
    lockStep('repair', (ctx) => `repairing after an interrupted rollout, by ${ctx.run.deps.who}`),
    verifyStep(verify),
    onlyIfBack(
      repairNote(`${status.release ?? '?'} does not verify: switching back to ${previous ?? '?'}`),
    ),
    onlyIfBack(
      stopStep(
        'previous',
        undefined,
        (ctx, why) =>
          new BlockedError(
            `${ctx.run.host.name} was left drained and its stop is not proven (${why}); stop it by hand, then run the rollout again (it repairs the host first)`,
          ),
      ),
    ),
    onlyIfBack(switchStep('previous')),
    onlyIfBack(startStep()),
    onlyIfBack(verifyStep(verify)),
    // the repair's gate: what runs now verifies, or the host needs a person
    {
      name: 'repair-gate',
      quiet: true,
      run: (ctx) => {
        const verified = ctx.results.get('verify');
        return Promise.resolve(
          verified?.ok
            ? {}
            : {
                error: new BlockedError(
                  `${ctx.run.host.name} was left drained and does not verify (${verified ? summarizeVerify(verified) : 'no answer'}); fix it, then 'deploy undrain ${ctx.run.host.name}'`,
                ),
              },
        );
      },
    },
    // the marker goes whatever the balancer answers, as in a deploy's undrain
    undrainStep(),
    awaitStep('in', bound['await-in'], undefined),
  ];
}

/** A warning on the log under the host's name: what a repair is about to do. */
function repairNote(message: string): HostStep<'repair-note'> {
  return {
    name: 'repair-note',
    quiet: true,
    run(ctx) {
      ctx.run.deps.log.emit({ level: 'warn', event: 'repair', host: ctx.run.host.name, message });
      return Promise.resolve();
    },
  };
}
