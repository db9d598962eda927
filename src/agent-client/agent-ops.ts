import type { ServiceReading } from '../protocol/results.js';
import type { AuditRead } from '../host/audit-read.js';
import type { EnvVars } from '../host/release-env.js';
import { encodePublish, type ReleaseFile } from '../host/release-files.js';
import type { ReleaseInventory } from '../host/release-inventory.js';
import type {
  ArtifactState,
  HelloData,
  HostStatus,
  StartReport,
  StopReport,
  SwitchResult,
  VerifyOptions,
  VerifyReport,
} from '../protocol/results.js';
import type { AgentOp, ArgsOf, ResultOf } from '../protocol/ops.js';
import type { LeaseAction, LeaseAnswer, LeaseRequest } from '../protocol/lease.js';
import type { ExecResult, Transport } from '../remote/transport.js';
import type { LocalArtifact, ShipResult } from './host-agent.js';

/**
 * The HostAgent operations as calls of `run` (client.ts), which takes each
 * one's channel and timeout from the table (protocol/ops.ts): what is left
 * here is only how the orchestrator's words become the table's arguments.
 */
export abstract class AgentOps {
  protected abstract readonly transport: Transport;
  abstract run<K extends AgentOp>(op: K, args: ArgsOf<K>): Promise<ResultOf<K>>;

  get host(): string {
    return this.transport.host;
  }

  hello(): Promise<HelloData> {
    return this.run('hello', {});
  }

  nodeVersion(): Promise<ExecResult> {
    return this.transport.exec(['node', '-p', 'process.versions.node'], { timeoutMs: 15_000 });
  }

  status(): Promise<HostStatus> {
    return this.run('status', {});
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
    const state = await this.artifactState(release, artifact.sha256);
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

  artifactState(release: string, sha256: string): Promise<ArtifactState> {
    return this.run('artifact', { release, sha256 });
  }

  releases(): Promise<ReleaseInventory> {
    return this.run('releases', {});
  }

  /** the services' own counts in host.state (rollout.canary.source: service) */
  serviceCounts(): Promise<ServiceReading> {
    return this.run('service-counts', {});
  }

  listening(targets: readonly string[]): Promise<Record<string, boolean>> {
    return this.run('listening', { targets: targets.join(',') });
  }

  prune(keep: number): Promise<{ removed: string[]; kept: string[] }> {
    return this.run('prune', { keep });
  }

  /** this host's piece of the fleet lease (host/lease-file.ts) */
  lease(action: LeaseAction, request?: LeaseRequest): Promise<LeaseAnswer> {
    return this.run('lease', { action, ...(request ? { lease: JSON.stringify(request) } : {}) });
  }

  async drain(by: string, leaseMs: number, release: string): Promise<void> {
    // an operator's drain has no release: '' is no release id, and the agent refuses it
    await this.run('drain', { by, leaseMs, ...(release ? { release } : {}) });
  }

  async undrain(): Promise<void> {
    await this.run('undrain', {});
  }

  stop(release: string): Promise<StopReport> {
    return this.run('stop', { release });
  }

  switchTo(release: string): Promise<SwitchResult> {
    return this.run('switch', { release });
  }

  start(services?: readonly string[], options: { ifStopped?: boolean } = {}): Promise<StartReport> {
    return this.run('start', {
      ...(services ? { services: services.join(',') } : {}),
      ...(options.ifStopped ? { ifStopped: true } : {}),
    });
  }

  verify(options: VerifyOptions): Promise<VerifyReport> {
    const { successes, timeoutMs, allowDraining, releaseOptional } = options;
    return this.run('verify', {
      successes,
      timeoutMs,
      allowDraining,
      ...(releaseOptional ? { releaseOptional } : {}),
    });
  }

  /** the host's audit.jsonl since `since` (ISO 8601), bounded by the agent (audit-read.ts) */
  readAudit(since?: string): Promise<AuditRead> {
    return this.run('audit-read', since === undefined ? {} : { since });
  }

  releaseLock(force: boolean): Promise<{ released: boolean; reason?: string }> {
    return this.run('lock-release', force ? { force } : {});
  }
}
