import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatReport, startLoad, type LoadReport } from '../../scripts/lab/index.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';
import { followDeploy, untilTrue, type DeployRun } from './deploy-run.js';
import { sampleRotation, type RotationSample } from './rotation-sampler.js';

// rollout.superseded: skip for the whole file: a queued job with a newer release deploys as
// usual, one with an older release stands down (scenario 2)
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 3,
    subnet: '127.0.94',
    workDir: '/tmp/handoff-e2e-94',
    config: { superseded: 'skip' },
  });
});
afterAll(async () => {
  await fleet?.stop();
});

interface Event {
  readonly event?: string;
  readonly host?: string;
}

/** `deploy …` started now; with --json its events are readable while it runs. */
const start = (args: readonly string[]): DeployRun<Event> =>
  followDeploy<Event>(fleet.spawnDeploy(args));

/** the scenario's spacing between two deployers (what it tests), never a wait for a condition */
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

/** The refusal line of a second deployer: exit 3, naming the holder, its command, release and heartbeat age. */
function expectRefusedBy(r: { code: number; stderr: string }, holder: string): void {
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toMatch(
    new RegExp(
      `the fleet lease is held \\(on web-\\d\\) by deploy ${holder} by e2e@\\S+ pid \\d+, heartbeat [\\d.]+m?s ago; wait for it, or queue with --wait-lease DURATION`,
    ),
  );
}

/** the refusal as the refused job said it, for the test's output */
const refusalOf = (r: { stderr: string }): string =>
  r.stderr.split('\n').find((l) => l.includes('fleet lease is held')) ?? r.stderr;

/** Load through the lab's HAProxy and its view of the servers, for the length of one scenario. */
function watchFleet() {
  const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
  const rotation = sampleRotation(fleet.lab);
  return {
    stop: async (): Promise<{ report: LoadReport; rotation: RotationSample }> => ({
      report: await load.stop(),
      rotation: await rotation.stop(),
    }),
  };
}

/**
 * The end of a scenario: the load and the sampler stopped, then what the issue asks each one
 * to show, asserted and said in one line of the test's output: 0 failed requests, never more
 * than the batch (1) out of rotation at once, the release each host ends on.
 */
async function ended(
  scenario: string,
  watching: ReturnType<typeof watchFleet>,
  want: readonly string[],
  extra = '',
): Promise<void> {
  const { report, rotation } = await watching.stop();
  const live = await releases();
  const out = Object.entries(rotation.worst)
    .map(([s, status]) => `${s} ${status}`)
    .join(', ');
  console.log(
    `${scenario}: at most ${rotation.maxOut} host(s) out of rotation at once (${out}; ${rotation.samples} reads), ended on ${live.join(' ')}; ${formatReport(report)}${extra ? `; ${extra}` : ''}`,
  );
  expect(live).toEqual(want);
  expect(report.failed, formatReport(report)).toBe(0);
  expect(rotation.maxOut, JSON.stringify(rotation)).toBe(1);
}

describe('two rollouts of one fleet (the fleet lease, under load)', () => {
  it('started 0.3 s apart: one deploys every host, the other is refused (exit 3, naming it); one queued with --wait-lease deploys after it', async () => {
    for (const r of ['r2', 'r3', 'r4']) await fleet.stageEverywhere(r);
    const seen = watchFleet();
    const first = start(['rollout', '--release', 'r2']);
    await pause(300);
    const second = start(['rollout', '--release', 'r3']);
    // a race 0.3 s wide on a shared machine: the lease decides it, and nothing interleaves;
    // the one refused ends first, the other runs the whole rollout
    const refused = await Promise.race(
      [first, second].map((run) => run.done.then((r) => ({ run, r }))),
    );
    const loser = refused.r;
    const winner = refused.run === first ? second : first;
    const won = winner === first ? 'r2' : 'r3';
    expectRefusedBy(loser, `rollout ${won}`);
    // the winner still holds the lease: a third job queues behind it
    expect(winner.exitCode()).toBeNull();
    const queued = start(['rollout', '--release', 'r4', '--wait-lease', '2m']);
    const w = await winner.done;
    expect(w.code, w.stderr).toBe(0);
    // what each host ended on by the winner's own word, before the queued job could start
    expect(w.stdout).toContain(`ended on: ${won} web-1, web-2, web-3`);
    const q = await queued.done;
    expect(q.code, q.stderr).toBe(0);
    expect(q.stderr).toMatch(
      new RegExp(`waiting for the fleet lease, held by deploy rollout ${won} by e2e@\\S+ pid \\d+`),
    );
    expect(q.stderr).toMatch(/took the fleet lease after waiting [\d.]+m?s/);
    await ended(
      '0.3 s apart, then --wait-lease',
      seen,
      ['r4', 'r4', 'r4'],
      `${won} won; ${refusalOf(loser)}`,
    );
  }, 240_000);

  it('10 s apart (mid-rollout): the second and a `deploy drain web-2` are refused naming the holder; an older release queued behind it is superseded, a queued drain runs after it', async () => {
    for (const r of ['r5', 'r6']) await fleet.stageEverywhere(r);
    const seen = watchFleet();
    const rollout = start(['rollout', '--release', 'r6', '--json']);
    await pause(10_000);
    // mid-rollout: past preflight, a host in its handshake
    expect(rollout.exitCode(), rollout.stderr()).toBeNull();
    expect(rollout.events.some((e) => e.event === 'step.start')).toBe(true);
    const [second, drain] = await Promise.all([
      fleet.deploy(['rollout', '--release', 'r7']),
      fleet.deploy(['drain', 'web-2']),
    ]);
    expectRefusedBy(second, 'rollout r6');
    expectRefusedBy(drain, 'rollout r6');
    expect(rollout.exitCode()).toBeNull();
    const older = start(['rollout', '--release', 'r5', '--wait-lease', '2m']);
    const queuedDrain = start(['drain', 'web-2', '--wait-lease', '2m']);
    // both are queued behind the rollout before it ends
    await untilTrue(
      'both queued jobs waiting',
      () =>
        older.stderr().includes('waiting for the fleet lease, held by deploy rollout r6') &&
        queuedDrain.stderr().includes('waiting for the fleet lease, held by deploy rollout r6'),
    );
    const r = await rollout.done;
    expect(r.code, r.stderr).toBe(0);
    const o = await older.done;
    expect(o.code, o.stderr).toBe(0);
    expect(o.stdout).toContain(
      'superseded: r5 is older than r6, which the fleet runs now (rollout.superseded: skip); nothing was deployed',
    );
    const d = await queuedDrain.done;
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toContain('web-2: drained');
    const undrain = await fleet.deploy(['undrain', 'web-2']);
    expect(undrain.code, undrain.stderr).toBe(0);
    await ended(
      '10 s apart, a drain, superseded, a queued drain',
      seen,
      ['r6', 'r6', 'r6'],
      refusalOf(drain),
    );
  }, 240_000);

  it('with disjoint --hosts 3 s apart: the second is refused (the lease covers the whole fleet)', async () => {
    await fleet.stageEverywhere('r8');
    const seen = watchFleet();
    const first = start(['rollout', '--release', 'r8', '--hosts', 'web-1,web-2']);
    await pause(3000);
    expect(first.exitCode(), first.stderr()).toBeNull();
    const second = await fleet.deploy(['rollout', '--release', 'r8', '--hosts', 'web-3']);
    expectRefusedBy(second, 'rollout r8');
    const f = await first.done;
    expect(f.code, f.stderr).toBe(0);
    await ended('disjoint --hosts 3 s apart', seen, ['r8', 'r8', 'r6'], refusalOf(second));
  }, 180_000);
});
