import { readFile, rm, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { execa, type ResultPromise } from 'execa';
import { benchCli } from './bundles.js';
import {
  startLab,
  type Lab,
  type LabBalancer,
  type LabConfigOptions,
  type LabRuntime,
  type LabTimings,
} from '../lab/index.js';

export interface DeployRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
  /** the orchestrator's peak RSS in KiB (getrusage ru_maxrss, via /usr/bin/time) */
  readonly maxRssKib?: number;
  /** the orchestrator's user + sys CPU ms, with --rss */
  readonly cpuMs?: number;
}

export interface BenchFleet {
  readonly lab: Lab;
  /** the deploy.yml every `deploy` of this fleet reads */
  readonly configPath: string;
  /**
   * CPU ms used so far on the hosts' side: each host's sshd and every session
   * and agent process it has reaped (the agent runs once per operation)
   */
  hostCpuMs(): Promise<number>;
  deploy(args: readonly string[], options?: { rss?: boolean }): Promise<DeployRun>;
  /** a release on every host: its directory, and with the compose runtime its image, as a pull would make it */
  stage(release: string): Promise<void>;
  /** `deploy …` started, not awaited: for a signal mid-run, or two at once */
  spawn(args: readonly string[]): ResultPromise<{ reject: false }>;
  stop(): Promise<void>;
}

export interface BenchFleetOptions {
  readonly hosts: number;
  /** one of the bench's subnets, 127.0.20 … 127.0.29 and 127.0.32 … 127.0.35 */
  readonly subnet: string;
  readonly workDir: string;
  readonly config?: LabConfigOptions;
  /** default haproxy; alb puts the lab's ELBv2 endpoint in front of it */
  readonly balancer?: LabBalancer;
  /** a second HAProxy with slower checks in front of the same hosts (an HAProxy pair) */
  readonly pair?: boolean | Partial<LabTimings>;
  /** default command; compose runs real containers (Podman, docs/lab.md) */
  readonly runtime?: LabRuntime;
  /** --batch of the first rollout: a fresh fleet has no capacity to guard */
  readonly firstBatch?: string;
  readonly report?: (line: string) => void;
}

const failed = (what: string, r: DeployRun): Error =>
  new Error(`${what} failed (${r.code}): ${r.stderr.slice(-2000)}${r.stdout.slice(-2000)}`);

/**
 * A lab set up the way an operator sets up a fleet: `deploy setup`, release r1
 * staged on every host, then a first `deploy rollout --release r1`, so every
 * host runs its services and is in rotation.
 */
export async function startBenchFleet(options: BenchFleetOptions): Promise<BenchFleet> {
  const report = options.report ?? (() => undefined);
  const lab = await startLab({
    hosts: options.hosts,
    subnet: options.subnet,
    workDir: options.workDir,
    ...(options.balancer ? { balancer: options.balancer } : {}),
    ...(options.pair ? { pair: options.pair } : {}),
    ...(options.runtime ? { runtime: options.runtime } : {}),
    report,
  });
  const configPath = path.join(lab.layout.workDir, 'deploy.yml');
  const rssFile = path.join(lab.layout.workDir, 'bench-rss.txt');
  const env = { HANDOFF_WHO: 'bench', ...lab.deployEnv() };
  const spawn = (args: readonly string[]) =>
    execa(process.execPath, [benchCli, ...args, '-c', configPath], { reject: false, env });
  const deploy = async (args: readonly string[], o: { rss?: boolean } = {}): Promise<DeployRun> => {
    const argv = [process.execPath, benchCli, ...args, '-c', configPath];
    const [file, ...rest] = o.rss
      ? ['/usr/bin/time', '-f', '%M %U %S', '-o', rssFile, ...argv]
      : argv;
    const started = performance.now();
    const r = await execa(file ?? '', rest, {
      reject: false,
      timeout: 900_000,
      env,
    });
    const wallMs = performance.now() - started;
    const run = {
      code: r.exitCode ?? -1,
      stdout: String(r.stdout),
      stderr: String(r.stderr),
      wallMs,
    };
    if (!o.rss) return run;
    const text = await readFile(rssFile, 'utf8');
    await rm(rssFile, { force: true });
    // /usr/bin/time prepends "Command exited with non-zero status N" when it did
    const [rss, user, sys] = (text.trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    return { ...run, maxRssKib: rss ?? Number.NaN, cpuMs: ((user ?? 0) + (sys ?? 0)) * 1000 };
  };
  const stage = async (release: string): Promise<void> => {
    if (lab.layout.runtime === 'compose') await lab.tagImage(release);
    await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, release)));
  };
  try {
    await writeFile(configPath, lab.config(options.config));
    report(`deploy setup on ${options.hosts} host(s)`);
    const setup = await deploy(['setup']);
    if (setup.code !== 0) throw failed('deploy setup', setup);
    report('staging r1 and rolling it out');
    await stage('r1');
    const first = await deploy([
      'rollout',
      '--release',
      'r1',
      ...(options.firstBatch ? ['--batch', options.firstBatch] : []),
    ]);
    if (first.code !== 0) throw failed('the first rollout', first);
  } catch (error) {
    await lab.stop();
    throw error;
  }
  return {
    lab,
    configPath,
    deploy,
    stage,
    spawn,
    hostCpuMs: () => hostCpuMs(lab),
    stop: () => lab.stop(),
  };
}

const clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime + cutime + cstime of each host's sshd, from /proc/<pid>/stat */
async function hostCpuMs(lab: Lab): Promise<number> {
  let ticks = 0;
  for (const h of lab.hosts) {
    const stat = await readFile(`/proc/${h.pid}/stat`, 'utf8');
    // fields after the command name, which may hold spaces: state is field 3, utime 14 … cstime 17
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  }
  return (ticks * 1000) / clockTicks;
}
