import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/clock.js';
import type { ServiceConfig } from '../../../../src/config/types.js';
import { OperationError } from '../../../../src/errors.js';
import { runCheck } from '../../../../src/host/checks/run.js';
import { createRuntime } from '../../../../src/host/runtime/create.js';
import type { Runtime, RuntimeSettings } from '../../../../src/host/runtime/runtime.js';
import { printable } from '../../../../src/safe-text.js';
import { eventually, isRunning, tempDir } from '../helpers.js';

// a real service: listens on a random loopback port and writes it down
const serviceJs = `import { createServer } from 'node:http';
import { renameSync, writeFileSync } from 'node:fs';
const server = createServer((_req, res) => res.end('ok'));
server.listen(0, '127.0.0.1', () => {
  writeFileSync(process.argv[2] + '.tmp', String(server.address().port));
  renameSync(process.argv[2] + '.tmp', process.argv[2]);
});
`;

const pidFile = '"$HANDOFF_STATE/$HANDOFF_SERVICE.pid"';
const web = (overrides: Partial<ServiceConfig> = {}): ServiceConfig => ({
  name: 'web',
  check: { kind: 'runtime', timeout: 2_000 },
  // backgrounded without redirecting its output: the runtime must not wait for it
  start: `'${process.execPath}' service.mjs "$HANDOFF_STATE/web.port" & echo $! > ${pidFile}`,
  stop: `kill "$(cat ${pidFile})"`,
  status: `kill -0 "$(cat ${pidFile})"`,
  stopProof: true,
  ...overrides,
});

let dir: string;
let cleanup: () => Promise<void>;
let settings: RuntimeSettings;
const started: number[] = [];
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  settings = {
    project: 'api',
    root: path.join(dir, 'root'),
    state: path.join(dir, 'state'),
    stopTimeout: 5_000,
    drainAnswer: 503,
    secretNames: [],
    runtime: { kind: 'command' },
    services: [web()],
  };
  await mkdir(settings.state, { recursive: true });
  await mkdir(path.join(settings.root, 'releases', 'r1'), { recursive: true });
  await writeFile(path.join(settings.root, 'releases', 'r1', 'service.mjs'), serviceJs);
});
afterEach(async () => {
  for (const pid of started.splice(0)) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  await cleanup();
});

function runtime(
  services: readonly ServiceConfig[] = settings.services,
  stopTimeout = settings.stopTimeout,
): Runtime {
  settings = { ...settings, services, stopTimeout };
  return createRuntime(settings, 'r1');
}

const stateFile = (name: string) => readFile(path.join(settings.state, name), 'utf8');

describe('the command runtime', () => {
  it('starts a real backgrounded service, sees it running, and stops it', async () => {
    const rt = runtime();
    await rt.start('web');
    const pid = Number(await stateFile('web.pid'));
    started.push(pid);
    const port = Number(await eventually(() => stateFile('web.port').catch(() => undefined)));
    const check = {
      kind: 'http',
      url: `http://127.0.0.1:${port}/health`,
      timeout: 2_000,
      expectStatus: 200,
      expectRelease: false,
    } as const;
    const deps = { clock: systemClock, state: settings.state, service: 'web' };
    expect(await runCheck(check, deps)).toMatchObject({ ok: true, code: 'ok' });
    expect(await rt.status('web')).toEqual({ state: 'running', detail: 'running' });

    await rt.stop('web');
    await eventually(() => !isRunning(pid));
    const after = await runCheck(check, deps);
    expect(after.ok).toBe(false);
    expect(['refused', 'reset']).toContain(after.code);
    // kill -0 still answers for a zombie until init reaps it, which can take a few seconds here
    const status = await eventually(
      async () => {
        const s = await rt.status('web');
        return s.state === 'stopped' ? s : undefined;
      },
      { within: 20_000, every: 250 },
    );
    expect(status).toEqual({ state: 'stopped', detail: 'exit-1' });
  }, 30_000);

  it('runs each command in the release directory with RELEASE, HANDOFF_SERVICE and HANDOFF_STATE set', async () => {
    const rt = runtime([
      web({
        start:
          'printf "%s\\n" "$RELEASE" "$HANDOFF_SERVICE" "$HANDOFF_STATE" "$PWD" > "$HANDOFF_STATE/env"',
      }),
    ]);
    await rt.start('web');
    expect((await stateFile('env')).split('\n')).toEqual([
      'r1',
      'web',
      settings.state,
      path.join(settings.root, 'releases', 'r1'),
      '',
    ]);
  });

  it("exports the release's .env to its commands, handoff's own names winning", async () => {
    await writeFile(
      path.join(settings.root, 'releases', 'r1', '.env'),
      `RELEASE=r1\nMODE='prod $x'\nRELEASE_NOTE='n'\n`,
    );
    const rt = runtime([
      web({ start: 'printf "%s|%s|%s" "$RELEASE" "$MODE" "$RELEASE_NOTE" > "$HANDOFF_STATE/env"' }),
    ]);
    await rt.start('web');
    expect(await stateFile('env')).toBe('r1|prod $x|n');
  });

  it('masks the values of env.secret it read from .env in what the agent says', async () => {
    settings = { ...settings, secretNames: ['TOKEN'] };
    await writeFile(
      path.join(settings.root, 'releases', 'r1', '.env'),
      `RELEASE=r1\nTOKEN='tok-cmd-runtime-unit'\n`,
    );
    await runtime([web({ start: 'true' })]).start('web');
    expect(printable('stderr: tok-cmd-runtime-unit')).toBe('stderr: ***');
  });

  it('starts every service in order and stops them in reverse', async () => {
    const step = (s: string) => `echo ${s} >> "$HANDOFF_STATE/order"`;
    const rt = runtime([
      web({ name: 'db', start: step('start-db'), stop: step('stop-db') }),
      web({ name: 'app', start: step('start-app'), stop: step('stop-app') }),
    ]);
    await rt.start();
    await rt.stop();
    expect(await stateFile('order')).toBe('start-db\nstart-app\nstop-app\nstop-db\n');
  });

  it('kills a stop command that outlives the stop timeout, with everything it spawned', async () => {
    const rt = runtime(
      [web({ stop: `sleep 30 & echo $! > "$HANDOFF_STATE/sleep.pid"; wait` })],
      300,
    );
    const failure = await rt.stop('web').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OperationError);
    expect((failure as Error).message).toMatch(
      /^stop of web did not finish within 300 ms and was killed; see .*web\.stop\.log$/,
    );
    const sleeper = Number(await stateFile('sleep.pid'));
    started.push(sleeper);
    await eventually(() => !isRunning(sleeper));
  });

  it('reports a failing start with the exit code and where its output went', async () => {
    const rt = runtime([web({ start: 'echo "no config" >&2; exit 4' })]);
    const log = path.join(settings.root, 'logs', 'web.start.log');
    await expect(rt.start('web')).rejects.toThrow(`start of web failed (exit 4); see ${log}`);
    expect(await readFile(log, 'utf8')).toBe('no config\n');
  });

  it('calls a service whose status command exits non-zero stopped, with the exit code', async () => {
    const rt = runtime([web({ status: 'exit 3' })]);
    expect(await rt.status('web')).toEqual({ state: 'stopped', detail: 'exit-3' });
  });

  it('calls a service whose status command hangs unknown once the timeout passes', async () => {
    const rt = runtime([web({ status: 'sleep 30' })]);
    expect(await rt.status('web', { timeoutMs: 200 })).toEqual({
      state: 'unknown',
      detail: 'timeout',
    });
  });

  it('restarts a service as stop, then start', async () => {
    const step = (s: string) => `echo ${s} >> "$HANDOFF_STATE/order"`;
    const rt = runtime([web({ start: step('start'), stop: step('stop') })]);
    await rt.restart('web');
    expect(await stateFile('order')).toBe('stop\nstart\n');
  });
});
