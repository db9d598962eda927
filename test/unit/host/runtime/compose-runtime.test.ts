import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OperationError } from '../../../../src/errors.js';
import { createHostExec } from '../../../../src/host/exec.js';
import {
  composePs,
  composePull,
  composeStop,
  composeUp,
} from '../../../../src/host/runtime/compose-argv.js';
import { createRuntime } from '../../../../src/host/runtime/create.js';
import type { RuntimeSettings } from '../../../../src/host/runtime/runtime.js';
import { tempDir } from '../helpers.js';

// There is no Docker engine here: a stand-in `docker` first on PATH records
// its argv, so this proves the plumbing from builder to process.
// (a shell script: node 20 would read the --env-file argument as its own)
const fakeDocker = `#!/bin/sh
for arg in "$@"; do printf '%s\\t' "$arg"; done >> "$FAKE_DOCKER_RECORD"
echo >> "$FAKE_DOCKER_RECORD"
if [ "$FAKE_DOCKER_FAIL" = "$8" ]; then
  echo 'pulling gateway ...' >&2
  echo 'Error response from daemon: manifest unknown' >&2
  exit 18
fi
if [ "$8" = ps ]; then printf '%s' "$FAKE_DOCKER_PS"; fi
`;

let dir: string;
let cleanup: () => Promise<void>;
let record: string;
let settings: RuntimeSettings;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  const bin = path.join(dir, 'bin');
  await mkdir(bin);
  await writeFile(path.join(bin, 'docker'), fakeDocker);
  await chmod(path.join(bin, 'docker'), 0o755);
  record = path.join(dir, 'record.jsonl');
  settings = {
    project: 'api',
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    stopTimeout: 30_000,
    runtime: { kind: 'compose', composeFile: 'infra/compose.yml' },
    services: [{ name: 'gateway', check: { kind: 'runtime', timeout: 2_000 }, stopProof: true }],
  };
  await mkdir(path.join(settings.root, 'releases', 'r1'), { recursive: true });
  await mkdir(path.join(settings.root, 'releases', 'r2'), { recursive: true });
});
afterEach(() => cleanup());

function runtime(env: Record<string, string> = {}) {
  const exec = createHostExec({
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      FAKE_DOCKER_RECORD: record,
      ...env,
    },
  });
  return createRuntime(settings, 'r1', exec);
}

async function recorded(): Promise<string[][]> {
  const text = await readFile(record, 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.split('\t').slice(0, -1));
}

describe('the compose runtime', () => {
  it('runs exactly the built command lines, in order, through docker on PATH', async () => {
    const rt = runtime();
    await rt.prepare('r2');
    await rt.stop();
    await rt.start('gateway');
    const t1 = { root: settings.root, release: 'r1', project: 'api' };
    const t2 = { ...t1, release: 'r2' };
    expect(await recorded()).toEqual([
      composePull(t2).slice(1),
      composeStop(t1, 30_000).slice(1),
      composeUp(t1, 'gateway').slice(1),
    ]);
  });

  it('reads a running service from compose ps', async () => {
    const ps = JSON.stringify({ Service: 'gateway', State: 'running', Health: 'healthy' });
    const rt = runtime({ FAKE_DOCKER_PS: `${ps}\n` });
    expect(await rt.status('gateway')).toEqual({ state: 'running', detail: 'running' });
    expect(await recorded()).toEqual([
      composePs({ root: settings.root, release: 'r1', project: 'api' }, 'gateway').slice(1),
    ]);
  });

  it('reports a failing docker command with its exit code and last stderr line', async () => {
    const failure = await runtime({ FAKE_DOCKER_FAIL: 'pull' })
      .prepare('r2')
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OperationError);
    expect((failure as Error).message).toBe(
      'docker compose pull failed (exit 18): Error response from daemon: manifest unknown',
    );
  });

  it('refuses to prepare a release that was never published, without running docker', async () => {
    await expect(runtime().prepare('r9')).rejects.toThrow(
      /release r9 is not published at .*releases\/r9/,
    );
    await expect(readFile(record)).rejects.toThrow(/ENOENT/);
  });

  it('says so when docker is not installed at all', async () => {
    const exec = createHostExec({ env: { PATH: path.join(dir, 'empty') } });
    await expect(createRuntime(settings, 'r1', exec).start()).rejects.toThrow(/cannot run docker/);
  });
});
