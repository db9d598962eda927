import type { EnvVars } from '../host/release-env.js';
import { encodePublish, type ReleaseFile } from '../host/release-files.js';
import type { StartReport } from '../protocol/results.js';
import type { AgentOp, ArgsOf, ResultOf } from '../protocol/ops.js';
import type { ExecResult, Transport } from '../remote/transport.js';
import type { LocalArtifact, ShipResult } from './host-agent.js';

/**
 * The few HostAgent calls that are more than `run` (client.ts) with the
 * table's arguments (protocol/ops.ts): publishing encodes its document,
 * shipping an artifact uploads between two operations, start takes a list.
 * Everything else is `run(op, args)` at the caller.
 */
export abstract class AgentOps {
  protected abstract readonly transport: Transport;
  abstract run<K extends AgentOp>(op: K, args: ArgsOf<K>): Promise<ResultOf<K>>;

  get host(): string {
    return this.transport.host;
  }

  nodeVersion(): Promise<ExecResult> {
    return this.transport.exec(['node', '-p', 'process.versions.node'], { timeoutMs: 15_000 });
  }

  async publish(release: string, files: readonly ReleaseFile[] = [], env: EnvVars = {}) {
    const empty = files.length === 0 && Object.keys(env).length === 0;
    // an empty document is no document: the agent reads none as none (release-files.ts)
    await this.run('publish', empty ? { release } : { release, files: encodePublish(files, env) });
  }

  async shipArtifact(
    release: string,
    artifact: LocalArtifact,
    onProgress?: (sent: number, total: number) => void,
  ): Promise<ShipResult> {
    const ask = { release, sha256: artifact.sha256 };
    const state = await this.run('artifact', ask);
    if (state.present) return { uploaded: false, bytes: 0 };
    const upload = state.upload;
    onProgress?.(0, artifact.bytes);
    try {
      await this.transport.upload(artifact.path, upload, onProgress ? { onProgress } : {});
    } catch (error) {
      // the hidden upload is no release, but it is not left to fill the disk either
      await this.transport
        .exec(['rm', '-f', '--', upload], { timeoutMs: 30_000 })
        .catch(() => undefined);
      throw error;
    }
    await this.run('artifact', { ...ask, file: upload });
    return { uploaded: true, bytes: artifact.bytes };
  }

  start(services?: readonly string[], options: { ifStopped?: boolean } = {}): Promise<StartReport> {
    return this.run('start', {
      ...(services ? { services: services.join(',') } : {}),
      ...(options.ifStopped ? { ifStopped: true } : {}),
    });
  }
}
