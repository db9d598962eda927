import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { OperationError, UsageError } from '../../../errors.js';
import { VERSION } from '../../../version.js';
import {
  newDrainMarker,
  readDrainMarker,
  removeDrainMarker,
  writeDrainMarker,
} from '../../drain-marker.js';
import { readLockStatus } from '../../lock.js';
import {
  listReleases,
  publishRelease,
  readLiveRelease,
  readPreviousRelease,
  switchRelease,
} from '../../releases.js';
import { createRuntime } from '../../runtime/create.js';
import { runtimeSettings, type Runtime } from '../../runtime/runtime.js';
import { StateStore } from '../../state-store.js';
import { verifyServices } from '../../verify.js';
import { PROTOCOL, type HelloData } from '../protocol.js';
import type { HostStatus, StartReport, SwitchResult, VerifyReport } from '../types.js';

/** The host config the agent runs with, by content: the orchestrator compares it with deploy.yml's. */
async function fileSha256(file: string): Promise<string | null> {
  const bytes = await readFile(file).catch(() => undefined);
  return bytes ? createHash('sha256').update(bytes).digest('hex') : null;
}

export async function hello(self: string): Promise<HelloData> {
  const sha256 = createHash('sha256')
    .update(await readFile(self))
    .digest('hex');
  return { version: VERSION, protocol: PROTOCOL, sha256, node: process.version };
}

async function liveRuntime(config: Config): Promise<Runtime> {
  const release = await readLiveRelease(config.host.root);
  if (!release)
    throw new OperationError(
      `no release is live on this host (${config.host.root}/current is missing)`,
    );
  return createRuntime(runtimeSettings(config), release);
}

export async function drain(
  config: Config,
  clock: Clock,
  args: { by: string; leaseMs: number; release?: string },
): Promise<unknown> {
  const marker = newDrainMarker({
    by: args.by,
    now: clock.now(),
    lease: args.leaseMs,
    ...(args.release ? { release: args.release } : {}),
  });
  await writeDrainMarker(config.host.state, marker);
  return marker;
}

export async function undrain(config: Config): Promise<unknown> {
  return { removed: await removeDrainMarker(config.host.state) };
}

/** stdin: `{"files": {"name": "content"}}`; `.env` with RELEASE is always written. */
export async function publish(config: Config, release: string, stdin: string): Promise<unknown> {
  let files: Record<string, string> = {};
  if (stdin.trim()) {
    const parsed = JSON.parse(stdin) as { files?: unknown };
    if (typeof parsed.files !== 'object' || parsed.files === null)
      throw new UsageError('publish: stdin must be {"files": {...}}');
    files = parsed.files as Record<string, string>;
  }
  const result = await publishRelease(config.host.root, release, {
    ...files,
    '.env': `RELEASE=${release}\n`,
  });
  await createRuntime(runtimeSettings(config), release).prepare(release);
  return { release, result };
}

export function switchTo(config: Config, release: string): Promise<SwitchResult> {
  return switchRelease(config.host.root, release);
}

/**
 * Start every service, or only `services`. With `ifStopped` (a rollback after a
 * stop that was not proven), each is asked first: one whose status says it
 * runs is left alone (it still runs the release that ran before), one whose
 * status does not answer is an error, never a second copy on top of it.
 */
export async function start(
  config: Config,
  args: { services?: readonly string[]; ifStopped?: boolean } = {},
): Promise<StartReport> {
  const runtime = await liveRuntime(config);
  const known = config.services.map((s) => s.name);
  const unknown = (args.services ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new UsageError(
      `unknown service ${unknown.join(', ')}; the host config lists ${known.join(', ')}`,
    );
  const names = known.filter((name) => args.services?.includes(name) ?? true);
  if (!args.ifStopped) {
    if (args.services === undefined) await runtime.start();
    else for (const name of names) await runtime.start(name);
    return { started: names, running: [] };
  }
  const started: string[] = [];
  const running: string[] = [];
  for (const name of names) {
    const status = await runtime.status(name);
    if (status.state === 'unknown')
      throw new OperationError(
        `${name}: its status did not answer (${status.detail}); not starting it on top of what may still run`,
      );
    if (status.state === 'stopped') {
      await runtime.start(name);
      started.push(name);
    } else running.push(name);
  }
  return { started, running };
}

export async function verify(
  config: Config,
  clock: Clock,
  args: {
    successes: number;
    timeoutMs: number;
    allowDraining: boolean;
    releaseOptional?: boolean;
    signal?: AbortSignal;
  },
): Promise<VerifyReport> {
  const release = await readLiveRelease(config.host.root);
  const runtime = release ? createRuntime(runtimeSettings(config), release) : undefined;
  return verifyServices(config, {
    ...args,
    clock,
    ...(runtime ? { runtime } : {}),
    ...(release ? { release } : {}),
  });
}

export async function status(config: Config): Promise<HostStatus> {
  const marker = await readDrainMarker(config.host.state);
  const watchdog = await new StateStore(config.host.state).read('watchdog.json', {
    parse: (v: unknown) => v as Record<string, unknown>,
  });
  const lock = await readLockStatus(config.host.lock);
  return {
    host: hostname(),
    config_sha256: await fileSha256(config.source),
    release: await readLiveRelease(config.host.root),
    previous: await readPreviousRelease(config.host.root),
    releases: await listReleases(config.host.root),
    lock: lock.holder ? { locked: lock.locked, holder: lock.holder } : { locked: lock.locked },
    draining:
      marker.value ??
      (marker.present ? { by: 'unknown (unreadable marker)', since: '', until: '' } : null),
    watchdog: watchdog.value ?? null,
  };
}
