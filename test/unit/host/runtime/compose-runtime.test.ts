import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlockedError, OperationError } from '../../../../src/errors.js';
import type { HostExec, HostRunResult } from '../../../../src/host/exec.js';
import {
  composeConfig,
  composePs,
  composePull,
  composeStop,
  composeUp,
  type ComposeTarget,
} from '../../../../src/host/runtime/compose-argv.js';
import { createRuntime } from '../../../../src/host/runtime/create.js';
import type { RuntimeSettings } from '../../../../src/host/runtime/runtime.js';
import { tempDir } from '../helpers.js';

/** A fake of our executor: answers by the argv's words, records every call. */
function fakeExec(answer: (argv: readonly string[]) => Partial<HostRunResult> | undefined) {
  const calls: string[][] = [];
  const exec: HostExec = (argv) => {
    calls.push([...argv]);
    return Promise.resolve({
      code: 0,
      stdout: '',
      stderr: '',
      timedOut: false,
      ...answer(argv),
    });
  };
  return { exec, calls };
}

const has = (argv: readonly string[], ...words: string[]) => words.every((w) => argv.includes(w));

let dir: string;
let cleanup: () => Promise<void>;
let settings: RuntimeSettings;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  settings = {
    project: 'api',
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    stopTimeout: 30_000,
    drainAnswer: 503,
    secretNames: [],
    runtime: { kind: 'compose', composeFile: 'infra/compose.yml' },
    services: [{ name: 'gateway', check: { kind: 'runtime', timeout: 2_000 }, stopProof: true }],
  };
  await mkdir(path.join(settings.root, 'releases', 'r1'), { recursive: true });
  await mkdir(path.join(settings.root, 'releases', 'r2'), { recursive: true });
});
afterEach(() => cleanup());

const resolved = 'services:\n  gateway:\n    image: registry.local/api:r2\n    init: true\n';

describe('the compose runtime', () => {
  it('finds the compose command once, then runs exactly the built command lines', async () => {
    const { exec, calls } = fakeExec((argv) => {
      if (has(argv, 'docker', 'compose', 'version')) return { code: 1, stderr: 'unknown command' };
      if (has(argv, 'config')) return { stdout: resolved };
      return undefined;
    });
    const rt = createRuntime(settings, 'r1', exec);
    await rt.prepare('r2');
    await rt.stop();
    await rt.start('gateway');
    const t1: ComposeTarget = {
      command: ['docker-compose'],
      root: settings.root,
      release: 'r1',
      project: 'api',
    };
    const t2 = { ...t1, release: 'r2' };
    expect(calls).toEqual([
      ['docker', 'compose', 'version'],
      ['docker-compose', 'version'],
      composePull(t2),
      composeConfig(t2),
      ['docker', 'image', 'inspect', '--format', '{{.Id}}', 'registry.local/api:r2'],
      composeStop(t1, 30_000),
      composeUp(t1, 'gateway'),
    ]);
  });

  it('uses runtime.compose_command as configured, and refuses in one line when it does not work', async () => {
    const configured: RuntimeSettings = {
      ...settings,
      runtime: { kind: 'compose', composeFile: 'compose.yml', composeCommand: ['podman-compose'] },
    };
    const { exec } = fakeExec(() => ({ code: 127, stderr: 'podman-compose: not found' }));
    const failure = await createRuntime(configured, 'r1', exec)
      .start()
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toBe(
      "runtime.compose_command does not work on this host: 'podman-compose version' (exit 127: podman-compose: not found)",
    );
  });

  it('names every candidate it tried when no compose command works', async () => {
    const { exec } = fakeExec(() => ({ code: 127 }));
    await expect(createRuntime(settings, 'r1', exec).status('gateway')).rejects.toThrow(
      "no compose command works on this host: tried 'docker compose version' (exit 127), 'docker-compose version' (exit 127), 'podman-compose version' (exit 127); install one or set runtime.compose_command",
    );
  });

  it('reads a running service from compose ps', async () => {
    const ps = JSON.stringify({ Service: 'gateway', State: 'running', Health: 'healthy' });
    const { exec, calls } = fakeExec((argv) =>
      has(argv, 'ps') ? { stdout: `${ps}\n` } : undefined,
    );
    expect(await createRuntime(settings, 'r1', exec).status('gateway')).toEqual({
      state: 'running',
      detail: 'running',
    });
    const t1 = {
      command: ['docker', 'compose'],
      root: settings.root,
      release: 'r1',
      project: 'api',
    };
    expect(calls.at(-1)).toEqual(composePs(t1, 'gateway'));
  });

  it('fails prepare naming the image that is not there, though the pull said nothing', async () => {
    const { exec } = fakeExec((argv) => {
      if (has(argv, 'config')) return { stdout: resolved };
      if (has(argv, 'image', 'inspect')) return { code: 1, stderr: 'Error: No such image' };
      return undefined;
    });
    const failure = await createRuntime(settings, 'r1', exec)
      .prepare('r2')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OperationError);
    expect((failure as Error).message).toBe(
      'image registry.local/api:r2 cannot be pulled and is not on this host: Error: No such image',
    );
  });

  it("fails prepare with the pull's last error line when the pull itself fails", async () => {
    const { exec } = fakeExec((argv) => {
      if (has(argv, 'pull')) return { code: 18, stderr: 'pulling gateway ...\nmanifest unknown' };
      if (has(argv, 'config')) return { stdout: resolved };
      if (has(argv, 'image', 'inspect')) return { code: 1 };
      return undefined;
    });
    await expect(createRuntime(settings, 'r1', exec).prepare('r2')).rejects.toThrow(
      'image registry.local/api:r2 cannot be pulled and is not on this host: manifest unknown',
    );
  });

  it("streams the pull's output line by line, and only the pull's", async () => {
    const streamed: string[] = [];
    const exec: HostExec = (argv, options = {}) => {
      const said = has(argv, 'pull')
        ? 'gateway Pulled'
        : has(argv, 'config')
          ? 'config'
          : 'inspect';
      options.onLine?.(said);
      return Promise.resolve({
        code: 0,
        stdout: has(argv, 'config') ? resolved : '',
        stderr: '',
        timedOut: false,
      });
    };
    await createRuntime(settings, 'r1', exec).prepare('r2', {
      onOutput: (line) => streamed.push(line),
    });
    expect(streamed).toEqual(['gateway Pulled']);
  });

  it('refuses to prepare a release that was never published, without running anything', async () => {
    const { exec, calls } = fakeExec(() => undefined);
    await expect(createRuntime(settings, 'r1', exec).prepare('r9')).rejects.toThrow(
      /release r9 is not published at .*releases\/r9/,
    );
    expect(calls).toEqual([]);
  });
});
