import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath } from '../../scripts/build.js';
import { followDeploy, untilTrue, type DeployRun } from './deploy-run.js';
import { liveReleases, startFleet, type Fleet } from './fleet-harness.js';

// Two deployers on one machine, one of them in a PID namespace of its own (`unshare --pid
// --fork`, as two CI runner containers on one VM with host networking): they share the host
// name, and a pid of one means nothing to the other. Only real namespaces show it.
let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: '127.0.100',
    workDir: '/tmp/handoff-e2e-100',
    config: { overlapMs: 500 },
  });
});
afterAll(async () => {
  await fleet?.stop();
});

interface Event {
  readonly event?: string;
  readonly message?: string;
}

/** `deploy …` started now, in this PID namespace or (`unshared`) in a new one. */
function start(args: readonly string[], unshared = false): DeployRun<Event> {
  const deploy = [bundlePath, ...args, '-c', fleet.configPath];
  const env = { HANDOFF_WHO: 'e2e', ...fleet.lab.deployEnv() };
  // --kill-child: the deployer (pid 1 of its namespace) dies with the unshare the test kills
  const proc = unshared
    ? execa(
        'unshare',
        ['--pid', '--fork', '--mount-proc', '--kill-child', process.execPath, ...deploy],
        {
          reject: false,
          env,
        },
      )
    : execa(process.execPath, deploy, { reject: false, env });
  return followDeploy<Event>(proc);
}

const holds = (run: DeployRun<Event>) => () => run.events.some((e) => e.event === 'lease.taken');
const releases = (): Promise<string[]> => liveReleases((args) => fleet.deploy(args));

describe('the fleet lease between PID namespaces of one machine', () => {
  it('a live holder of another PID namespace is not taken over though its pid is absent here: refused, saying why; the holder finishes', async () => {
    for (const r of ['r2', 'r3']) await fleet.stageEverywhere(r);
    const holder = start(['rollout', '--release', 'r2', '--json']);
    await untilTrue('the holder mid-rollout', () =>
      holder.events.some((e) => e.event === 'step.start'),
    );
    const other = await start(['rollout', '--release', 'r3'], true).done;
    console.log(`another PID namespace: ${other.stderr.trim()}`);
    expect(other.code, other.stderr).toBe(3);
    expect(other.stderr).toMatch(
      /the fleet lease is held \(on web-\d\) by deploy rollout r2 by e2e@\S+ pid \d+, heartbeat [\d.]+m?s ago \(it shares this machine, but not this PID namespace, so it is left to expire\); wait for it/,
    );
    expect(other.stderr).not.toContain('taking over');
    const h = await holder.done;
    expect(h.code, h.stderr).toBe(0);
    expect(holder.events.some((e) => e.event === 'lease.lost')).toBe(false);
    expect(await releases()).toEqual(['r2', 'r2']);
  }, 120_000);

  it('a holder SIGKILLed in another PID namespace is waited out until its heartbeat expires, and the takeover says expired', async () => {
    await fleet.stageEverywhere('r4');
    const dead = start(['rollout', '--release', 'r4', '--json'], true);
    await untilTrue('the unshared holder holds the lease', holds(dead));
    dead.kill();
    await dead.done;
    const next = start(['rollout', '--release', 'r4', '--wait-lease', '2m']);
    const n = await next.done;
    console.log(
      `after a SIGKILL in another PID namespace: ${n.stderr
        .split('\n')
        .filter((l) => l.includes('lease'))
        .join(' | ')}`,
    );
    expect(n.code, n.stderr).toBe(0);
    expect(n.stderr).toMatch(
      /waiting for the fleet lease, held by deploy rollout r4 by e2e@\S+ pid 1, heartbeat [\d.]+m?s ago \(it shares this machine, but not this PID namespace, so it is left to expire\)/,
    );
    expect(n.stderr).toMatch(
      /took over an expired fleet lease of deploy rollout r4 by e2e@\S+ pid 1: its heartbeat was 3\d(\.\d)?s old \(expired after 30s\)/,
    );
    expect(n.stderr).not.toContain('taking over');
    expect(await releases()).toEqual(['r4', 'r4']);
  }, 150_000);

  it('a holder SIGKILLed in this PID namespace is proven gone and taken over at once, never called expired', async () => {
    await fleet.stageEverywhere('r5');
    const dead = start(['rollout', '--release', 'r5', '--json']);
    await untilTrue('the holder holds the lease', holds(dead));
    dead.kill();
    await dead.done;
    const n = await start(['rollout', '--release', 'r5']).done;
    console.log(
      `after a SIGKILL in this PID namespace: ${n.stderr
        .split('\n')
        .filter((l) => l.includes('lease'))
        .join(' | ')}`,
    );
    expect(n.code, n.stderr).toBe(0);
    expect(n.stderr).toMatch(
      new RegExp(
        `taking over the fleet lease of deploy rollout r5 by e2e@\\S+ pid ${dead.pid}: that process is gone from this machine and PID namespace \\(pid ${dead.pid} does not exist\\) \\(heartbeat [\\d.]+m?s ago, not expired\\)`,
      ),
    );
    expect(n.stderr).not.toContain('took over an expired');
    expect(await releases()).toEqual(['r5', 'r5']);
  }, 120_000);
});
