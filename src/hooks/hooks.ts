import { access, constants, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { UsageError } from '../errors.js';
import type { Log } from '../log.js';
import { runHook, type HookRun } from './run-hook.js';

export const HOOK_NAMES = ['pre-deploy', 'pre-host', 'post-host', 'post-deploy'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

/** What changes from one hook call to the next; the release's hosts and performer are bound. */
export interface HookCall {
  readonly release: string;
  /** pre-host / post-host */
  readonly host?: string;
  /** post-host: the host's result; post-deploy: ok | failed | blocked */
  readonly result?: string;
  readonly signal?: AbortSignal;
}

/** The hooks of one deploy. A hook with no file is a pass. */
export interface Hooks {
  /** a file exists for it: without one, nothing is run or recorded */
  has(name: HookName): boolean;
  run(name: HookName, call: HookCall): Promise<HookRun>;
}

export const noHooks: Hooks = {
  has: () => false,
  run: () => Promise.resolve({ ok: true, detail: 'no hook' }),
};

/** `.handoff/hooks/` beside deploy.yml. */
export function hooksDir(config: Config): string {
  return path.join(path.dirname(path.resolve(config.source)), '.handoff', 'hooks');
}

export interface HookContext {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
  /** every host of the plan, for HANDOFF_HOSTS */
  readonly hosts: readonly string[];
  /** user@machine, for HANDOFF_PERFORMER */
  readonly performer: string;
  /** the environment hooks inherit (the orchestrator's) */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Find the hook files before anything runs: one that exists but cannot be
 * executed is a usage error now, not a surprise at the last host.
 */
export async function loadHooks(context: HookContext): Promise<Hooks> {
  const dir = hooksDir(context.config);
  const files = new Map<HookName, string>();
  for (const name of HOOK_NAMES) {
    const file = path.join(dir, name);
    const isFile = await stat(file).then(
      (s) => s.isFile(),
      () => false,
    );
    if (!isFile) continue;
    const executable = await access(file, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!executable)
      throw new UsageError(
        `hook ${path.relative(process.cwd(), file) || file} is not executable: 'chmod +x' it, or remove it`,
      );
    files.set(name, file);
  }
  if (files.size === 0) return noHooks;
  return {
    has: (name) => files.has(name),
    run(name, call) {
      const file = files.get(name);
      if (!file) return Promise.resolve({ ok: true, detail: 'no hook' });
      return runHook({
        name,
        file,
        cwd: path.dirname(path.resolve(context.config.source)),
        env: { ...(context.env ?? process.env), ...hookEnv(context, call) },
        timeoutMs: context.config.hooks.timeout,
        clock: context.clock,
        log: context.log,
        ...(call.host ? { host: call.host } : {}),
        ...(call.signal ? { signal: call.signal } : {}),
      });
    },
  };
}

/** The HANDOFF_* variables: empty strings where a hook has no value, so a stale one never leaks in. */
export function hookEnv(context: HookContext, call: HookCall): Record<string, string> {
  return {
    HANDOFF_RELEASE: call.release,
    HANDOFF_HOSTS: context.hosts.join(','),
    HANDOFF_HOST: call.host ?? '',
    HANDOFF_RESULT: call.result ?? '',
    HANDOFF_PERFORMER: context.performer,
  };
}
