import {
  composeEnv,
  composeLabProblem,
  startLoad,
  startWatchdogs,
  type Lab,
  type Load,
  type LoadReport,
  type Watchdogs,
} from '../lab/index.js';
import { startBenchFleet, type BenchFleet } from './fleet.js';
import { frontendsOf } from './soak-configs.js';
import type { SoakState } from './soak-heal.js';
import type { SoakRuntime } from './soak-schedule.js';

const HOUR = 3_600_000;
/** keep-alive load, as the rollout bench sends it; bounded by the soak's own length */
export const LOAD = {
  concurrency: 8,
  maxRequests: Number.MAX_SAFE_INTEGER,
  maxDurationMs: 4 * HOUR,
};

/** One of the soak's labs, with its own clients, watchdogs, and what its rollouts left. */
export interface SoakLab {
  readonly runtime: SoakRuntime;
  readonly fleet: BenchFleet;
  /** keep-alive load through lb-a from the first rollout to the end */
  readonly main: Load;
  readonly watchdogs: Watchdogs;
  readonly state: SoakState;
}

export type SoakLabs = Readonly<Record<SoakRuntime, SoakLab>>;

// short: Podman refuses a runroot (<workDir>/hosts/<host>/podman/run) longer than 50 characters
const COMPOSE_WORK_DIR = '/tmp/handoff-bench-soak-c';

/**
 * Two labs, as `runtime` is a fleet-wide choice: the command runtime's on
 * 127.0.98 with every balancer (lb-a, lb-b, the ELBv2 endpoint), and the
 * compose runtime's on 127.0.99, real containers under rootful Podman
 * (docs/lab.md) behind an lb-a of its own. Both carry load and tick their
 * watchdogs from the first rollout to the last, whichever lab a rollout is on.
 */
export async function startSoakLabs(report: (line: string) => void): Promise<SoakLabs> {
  const problem = await composeLabProblem(COMPOSE_WORK_DIR);
  // a soak without the compose runtime would not measure the mix
  if (problem) throw new Error(`the soak's compose lab cannot run here: ${problem}`);
  report('soak: the command runtime’s lab, 3 hosts on 127.0.98');
  const command = await startBenchFleet({
    hosts: 3,
    subnet: '127.0.98',
    workDir: '/tmp/handoff-bench-soak',
    balancer: 'alb',
    // lb-b, behind the endpoint's second group too: whole seconds, slower than lb-a's 2s × 2
    pair: { interval: 2000, fall: 3, rise: 2, checkTimeout: 1000 },
    report: (line) => report(`  ${line}`),
  });
  let compose: BenchFleet;
  try {
    report('soak: the compose runtime’s lab, 3 hosts on 127.0.99 (Podman)');
    compose = await startBenchFleet({
      hosts: 3,
      subnet: '127.0.99',
      workDir: COMPOSE_WORK_DIR,
      runtime: 'compose',
      report: (line) => report(`  compose: ${line}`),
    });
  } catch (error) {
    await command.stop();
    throw error;
  }
  return { command: soakLab('command', command), compose: soakLab('compose', compose) };
}

/**
 * A compose tick runs docker-compose 1.x (Python: ~0.5 s of CPU a call on this
 * machine) where a command tick reads a pid file: three of them every second
 * would want both cores, so the compose lab's watchdogs tick every 5 s,
 * still twice as often as the lab's deploy.yml has cron run them (watchdog.every 10s).
 */
const COMPOSE_TICK_S = 5;

function soakLab(runtime: SoakRuntime, fleet: BenchFleet): SoakLab {
  const { lab } = fleet;
  const env =
    runtime === 'compose' ? (h: Lab['hosts'][number]) => composeEnv(lab.layout, h) : undefined;
  return {
    runtime,
    fleet,
    main: startLoad({ url: frontendsOf(lab, 'haproxy')[0] ?? lab.url, ...LOAD }),
    watchdogs: startWatchdogs(lab.hosts, {
      timeoutMs: 4 * HOUR,
      ...(env ? { env, loopSeconds: COMPOSE_TICK_S } : {}),
    }),
    state: { config: '', live: 'r1', killed: false },
  };
}

/** `compose: web-1 (marker)`: the compose lab's hosts have the same names as the command lab's */
export const labelled = (lab: SoakLab, line: string): string =>
  lab.runtime === 'compose' ? `compose: ${line}` : line;

/** A lab's load report whose per-host counts name the lab too, so two labs' web-1 stay apart. */
export function labelledReport(lab: Pick<SoakLab, 'runtime'>, report: LoadReport): LoadReport {
  if (lab.runtime !== 'compose') return report;
  const hosts = Object.fromEntries(
    Object.entries(report.hosts).map(([host, n]) => [`compose: ${host}`, n]),
  );
  return { ...report, hosts };
}
