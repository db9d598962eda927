import { copyFile, cp, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { agentBundlePath, bundlePath } from '../../scripts/build.js';
import type { DeployRun, Fleet } from './fleet-harness.js';

export interface Pinned {
  /** run `deploy …` from the pinned copy against the fleet's deploy.yml (or `config`) */
  deploy(args: readonly string[], options?: { config?: string }): Promise<DeployRun>;
  /** start it without waiting; `kill` it with process.kill, execa would follow with SIGKILL */
  spawnDeploy(args: readonly string[]): ResultPromise;
}

/**
 * A private copy of the bundle, installed on the fleet by `deploy setup`: other
 * engineers' e2e runs rebuild dist/ while ours runs, and a rebuilt CLI refuses
 * hosts whose agent differs from its own (preflight compares checksums).
 */
export async function pinBundle(fleet: Fleet): Promise<Pinned> {
  const dir = path.join(fleet.lab.layout.workDir, 'bundle');
  await mkdir(path.join(dir, 'agent'), { recursive: true });
  const cli = path.join(dir, 'deploy.mjs');
  await copyFile(bundlePath, cli);
  // the agent and the library files beside it
  await cp(path.dirname(agentBundlePath), path.join(dir, 'agent'), { recursive: true });
  const argv = (args: readonly string[], config = fleet.configPath) => [cli, ...args, '-c', config];
  const env = { HANDOFF_WHO: 'e2e' };
  const pinned: Pinned = {
    deploy: async (args, o = {}) => {
      const r = await execa(process.execPath, argv(args, o.config), {
        reject: false,
        timeout: 300_000,
        env,
      });
      return { code: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
    },
    spawnDeploy: (args) => execa(process.execPath, argv(args), { reject: false, env }),
  };
  const setup = await pinned.deploy(['setup']);
  if (setup.code !== 0) throw new Error(`deploy setup (pinned) failed: ${setup.stderr}`);
  return pinned;
}
