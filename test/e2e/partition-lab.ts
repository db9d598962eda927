import { afterAll, beforeAll, expect } from 'vitest';
import { LabFaults } from '../../scripts/lab/faults.js';
import { formatReport, startLoad, type LoadReport } from '../../scripts/lab/index.js';
import { rolloutUnderLoad, startFleet, type Fleet } from './fleet-harness.js';
import { sampleRotation, type RotationSample } from './rotation-sampler.js';
import { watchRollout } from './watch-rollout.js';

/** A three-host lab with network faults on its own subnet (scripts/lab/faults.ts). */
export interface PartitionLab {
  readonly fleet: Fleet;
  readonly faults: LabFaults;
}

/**
 * The file's lab, started before its tests (releases staged on every host)
 * and stopped after them: the faults first (nothing stays cut), then what
 * `also` started, then the fleet. Read its fields inside tests only.
 */
export function usePartitionLab(
  subnet: string,
  options: {
    readonly releases: readonly string[];
    readonly also?: { start?(): Promise<void>; stop(): Promise<void> };
    /** the lab's ELBv2 endpoint in front of HAProxy instead of HAProxy itself */
    readonly balancer?: 'alb';
  },
): PartitionLab {
  const lab: { fleet?: Fleet; faults?: LabFaults } = {};
  beforeAll(async () => {
    lab.faults = await LabFaults.open(subnet);
    await options.also?.start?.();
    const workDir = `/tmp/handoff-e2e-${subnet.split('.')[2] ?? subnet}`;
    lab.fleet = await startFleet({
      hosts: 3,
      subnet,
      workDir,
      ...(options.balancer && { balancer: options.balancer }),
    });
    for (const r of options.releases) await lab.fleet.stageEverywhere(r);
  }, 240_000);
  afterAll(async () => {
    await lab.faults?.close();
    await options.also?.stop();
    await lab.fleet?.stop();
  });
  const need = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the partition lab is read before beforeAll started it');
    return v;
  };
  return {
    get fleet() {
      return need(lab.fleet);
    },
    get faults() {
      return need(lab.faults);
    },
  };
}

/** What the balancer and the load saw while a fault was on, and after it healed. */
interface Seen {
  readonly report: LoadReport;
  readonly rotation: RotationSample;
  /** from the heal until every host served again (the balancer's view) */
  readonly wholeAfterMs: number;
}

/** the longest a healed fleet may take to have every host serving: a few health checks */
const WHOLE_WITHIN_MS = 30_000;

/**
 * The measure of every partition scenario: no request failed, never more than
 * one host out at once (the lab's batch), and the fleet whole soon after the
 * heal (printed: how long it took).
 */
export function expectNothingLost(seen: Seen, name = expect.getState().currentTestName): void {
  console.log(
    `${name ?? 'partition'}: ${formatReport(seen.report)}; at most ${seen.rotation.maxOut} host out at once; whole ${seen.wholeAfterMs} ms after the heal`,
  );
  expect(seen.report.failed, formatReport(seen.report)).toBe(0);
  expect(seen.rotation.maxOut, JSON.stringify(seen.rotation.worst)).toBeLessThanOrEqual(1);
  expect(seen.wholeAfterMs).toBeLessThanOrEqual(WHOLE_WITHIN_MS);
}

/** `cut`, then a rollout under load, the rotation sampled throughout; healed whatever happens. */
export async function rolloutThroughFault(
  lab: PartitionLab,
  release: string,
  cut: () => Promise<void>,
): Promise<Awaited<ReturnType<typeof rolloutUnderLoad>> & Seen> {
  const sampler = sampleRotation(lab.fleet.lab);
  try {
    await cut();
    const run = await rolloutUnderLoad(lab.fleet, release);
    await lab.faults.heal();
    const wholeAfterMs = await sampler.whole(WHOLE_WITHIN_MS);
    return { ...run, wholeAfterMs, rotation: await sampler.stop() };
  } finally {
    // a throw above: nothing stays cut, the sampler's loop ends (the throw is what is reported)
    await lab.faults.heal();
    await sampler.stop().catch(() => undefined);
  }
}

/**
 * A rollout watched under load while `during` cuts and checks it; then healed,
 * the rollout ended (killed if it still runs), the load and the sampler
 * stopped whatever `during` did, and nothing lost asserted.
 */
export async function watchThroughFault(
  lab: PartitionLab,
  release: string,
  during: (run: ReturnType<typeof watchRollout>) => Promise<void>,
): Promise<void> {
  const load = startLoad({ url: lab.fleet.lab.url, concurrency: 6 });
  const sampler = sampleRotation(lab.fleet.lab);
  const run = watchRollout(lab.fleet, release);
  try {
    await during(run);
    await lab.faults.heal();
    const wholeAfterMs = await sampler.whole(WHOLE_WITHIN_MS);
    expectNothingLost({ report: await load.stop(), rotation: await sampler.stop(), wholeAfterMs });
  } finally {
    await lab.faults.heal();
    run.proc.kill('SIGKILL');
    await run.proc;
    await load.stop();
    await sampler.stop().catch(() => undefined);
  }
}
