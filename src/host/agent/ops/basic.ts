import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { OperationError, UsageError, messageOf } from '../../../errors.js';
import { VERSION } from '../../../version.js';
import {
  newDrainMarker,
  readDrainMarker,
  removeDrainMarker,
  writeDrainMarker,
} from '../../drain-marker.js';
import { readLastStop } from '../../last-stop.js';
import { readLockStatus } from '../../lock.js';
import { renderEnv, type EnvVars } from '../../release-env.js';
import { checkWritten, composeSha256, decodePublish, sha256 } from '../../release-files.js';
import {
  listReleases,
  publishRelease,
  readLiveRelease,
  readPreviousRelease,
  switchRelease,
} from '../../releases.js';
import { ComposeRuntime } from '../../runtime/compose.js';
import { createRuntime } from '../../runtime/create.js';
import { releaseMarksEnv } from '../../runtime/marks-env.js';
import { drainEnv, runtimeSettings, type Runtime } from '../../runtime/runtime.js';
import { StateStore } from '../../state-store.js';
import { verifyServices } from '../../verify.js';
import type { AgentIO } from '../io.js';
import { progressRelay } from '../progress.js';
import { PROTOCOL } from '../../../protocol/lines.js';
import type {
  ComposeStatus,
  HelloData,
  HostStatus,
  StartReport,
  SwitchResult,
  VerifyReport,
} from '../../../protocol/results.js';

/** The host config the agent runs with, by content: the orchestrator compares it with deploy.yml's. */
async function fileSha256(file: string): Promise<string | null> {
  const bytes = await readFile(file).catch(() => undefined);
  return bytes ? sha256(bytes) : null;
}

export async function hello(self: string): Promise<HelloData> {
  return {
    version: VERSION,
    protocol: PROTOCOL,
    sha256: sha256(await readFile(self)),
    node: process.version,
  };
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

/**
 * `document` (release-files.ts): the files sent with the release, each
 * sha256-checked as received and again as written; `.env` with RELEASE and
 * the operator's variables (secrets among them: mode 0600, and never in the
 * answer) is always written. Then the runtime prepares the release (compose: pull).
 */
export async function publish(
  config: Config,
  release: string,
  document: string,
  progress?: { io: AgentIO; clock: Clock },
): Promise<unknown> {
  const { files, env } = decodePublish(document);
  const result = await publishRelease(
    config.host.root,
    release,
    {
      ...Object.fromEntries(files.map((f) => [f.name, f.content])),
      '.env': renderEnv(releaseEnv(config, release), env),
    },
    // an env_file may hold secrets as .env does: its user only
    {
      ...Object.fromEntries(
        files.filter((f) => f.name !== 'compose.yml').map((f) => [f.name, 0o600]),
      ),
      '.env': 0o600,
    },
  );
  await checkWritten(config.host.root, release, files);
  await createRuntime(runtimeSettings(config), release).prepare(
    release,
    progress ? { onOutput: progressRelay(progress.io, progress.clock, 'pull', 'pull') } : {},
  );
  return { release, result, sha256: Object.fromEntries(files.map((f) => [f.name, f.sha256])) };
}

/**
 * The release's `.env`: RELEASE, the timing a service's graceful shutdown
 * needs and the heartbeat checks' marks directories (the command runtime
 * exports the same to its commands), so a compose file can hand them to its
 * containers: `HANDOFF_STOP_TIMEOUT: ${HANDOFF_STOP_TIMEOUT}`.
 */
function releaseEnv(config: Config, release: string): EnvVars {
  const settings = runtimeSettings(config);
  return {
    RELEASE: release,
    ...drainEnv(settings),
    ...releaseMarksEnv(settings.state, settings.services),
  };
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

/**
 * What this host says of itself. Every read is its own: they go at once, since
 * each waits on the thread pool, and the capacity guard and a rollout's end
 * wait for this on a busy host (one after the other they took 6–26 ms in the
 * rollout bench).
 */
export async function status(config: Config): Promise<HostStatus> {
  const { root, state } = config.host;
  const release = readLiveRelease(root);
  const [marker, watchdog, lock, live, configSha256, compose, previous, releases, lastStop] =
    await Promise.all([
      readDrainMarker(state),
      new StateStore(state).read('watchdog.json', {
        parse: (v: unknown) => v as Record<string, unknown>,
      }),
      readLockStatus(config.host.lock),
      release,
      fileSha256(config.source),
      config.runtime.kind === 'compose' ? release.then((r) => composeStatus(config, r)) : undefined,
      readPreviousRelease(root),
      listReleases(root),
      readLastStop(state),
    ]);
  return {
    host: hostname(),
    config_sha256: configSha256,
    release: live,
    ...(compose ? { compose } : {}),
    previous,
    releases,
    lock: lock.holder ? { locked: lock.locked, holder: lock.holder } : { locked: lock.locked },
    draining:
      marker.value ??
      (marker.present ? { by: 'unknown (unreadable marker)', since: '', until: '' } : null),
    watchdog: watchdog.value ?? null,
    lastStop,
  };
}

/** The live release's compose hash, and whether this host answers to a compose command. */
async function composeStatus(config: Config, release: string | null): Promise<ComposeStatus> {
  const sha256 = release ? await composeSha256(config.host.root, release) : null;
  const runtime = createRuntime(runtimeSettings(config), release ?? '');
  try {
    const command = runtime instanceof ComposeRuntime ? await runtime.composeCommand() : [];
    return { sha256, command: [...command] };
  } catch (error) {
    return { sha256, error: messageOf(error) };
  }
}
