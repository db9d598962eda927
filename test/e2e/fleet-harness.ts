import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { bundlePath } from '../../scripts/build.js';
import type { HostOutcome } from '../../src/rollout/types.js';
import {
  startLab,
  startLoad,
  type Lab,
  type LabConfigOptions,
  type LabOptions,
  type StageOptions,
} from '../../scripts/lab/index.js';

export interface DeployRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface Fleet {
  readonly lab: Lab;
  readonly configPath: string;
  /** run the real `deploy` (the bundle) against the lab's deploy.yml */
  deploy(args: readonly string[], options?: { timeoutMs?: number }): Promise<DeployRun>;
  /** start `deploy …` without waiting (for interrupting it) */
  spawnDeploy(args: readonly string[]): ReturnType<typeof execa>;
  writeConfig(options?: LabConfigOptions): Promise<void>;
  /** writeConfig, then `deploy setup`: a rollout refuses hosts whose host config is not deploy.yml's */
  configure(options?: LabConfigOptions): Promise<void>;
  stageEverywhere(release: string, options?: StageOptions): Promise<void>;
  stop(): Promise<void>;
}

/** A lab whose hosts are set up by `deploy setup`, with release `r1` live from a first rollout. */
export async function startFleet(
  options: LabOptions & { config?: LabConfigOptions; release?: string | null } = {},
): Promise<Fleet> {
  const lab = await startLab({ handleSignals: false, ...options });
  const configPath = path.join(lab.layout.workDir, 'deploy.yml');
  const argvFor = (args: readonly string[]) => [bundlePath, ...args, '-c', configPath];
  const fleet: Fleet = {
    lab,
    configPath,
    deploy: async (args, o = {}) => {
      const r = await execa(process.execPath, argvFor(args), {
        reject: false,
        timeout: o.timeoutMs ?? 300_000,
        env: { HANDOFF_WHO: 'e2e', ...lab.deployEnv() },
      });
      return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    spawnDeploy: (args) =>
      execa(process.execPath, argvFor(args), {
        reject: false,
        env: { HANDOFF_WHO: 'e2e', ...lab.deployEnv() },
      }),
    writeConfig: (o) => writeFile(configPath, lab.config(o)),
    configure: async (o) => {
      await fleet.writeConfig(o);
      const setup = await fleet.deploy(['setup']);
      if (setup.code !== 0)
        throw new Error(`deploy setup failed (${setup.code}): ${setup.stderr}${setup.stdout}`);
    },
    stageEverywhere: async (release, o) => {
      await Promise.all(lab.hosts.map((h) => lab.stageRelease(h, release, o)));
    },
    stop: () => lab.stop(),
  };
  try {
    await fleet.writeConfig(options.config);
    const setup = await fleet.deploy(['setup']);
    if (setup.code !== 0)
      throw new Error(`deploy setup failed (${setup.code}): ${setup.stderr}${setup.stdout}`);
    const release = options.release === undefined ? 'r1' : options.release;
    if (release) {
      await fleet.stageEverywhere(release);
      const first = await fleet.deploy(['rollout', '--release', release]);
      if (first.code !== 0)
        throw new Error(`first rollout failed (${first.code}): ${first.stderr}${first.stdout}`);
    }
    return fleet;
  } catch (error) {
    await lab.stop();
    throw error;
  }
}

/** The live release of every host, from `deploy status --json`, in the fleet's order. */
export async function liveReleases(
  deploy: (args: readonly string[]) => Promise<DeployRun>,
): Promise<string[]> {
  const r = await deploy(['status', '--json']);
  const result = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event?: string; hosts?: { status?: { release: string } }[] })
    .find((l) => l.event === 'result');
  return (result?.hosts ?? []).map((h) => h.status?.release ?? '?');
}

/** `deploy rollout --json` under load through the lab's HAProxy: the result line and the load report. */
export async function rolloutUnderLoad(fleet: Fleet, release: string) {
  const load = startLoad({ url: fleet.lab.url, concurrency: 8 });
  const r = await fleet.deploy(['rollout', '--release', release, '--json']);
  const report = await load.stop();
  const lines = r.stdout.trim().split('\n');
  const result = JSON.parse(lines.at(-1) ?? '{}') as { ok: boolean; hosts: HostOutcome[] };
  return { ...r, report, result, log: `${r.stderr}\n${r.stdout}` };
}
