import { spawn } from 'node:child_process';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import type { AgentIO } from '../../../src/host/agent/io.js';
import type { AgentLine } from '../../../src/protocol/lines.js';
import type { AgentOp } from '../../../src/protocol/ops.js';
import { serveAgentOp, type AgentArgs } from '../../../src/host/agent/server.js';
import type { HostStatus, StopReport } from '../../../src/protocol/results.js';
import { hostFixture, httpService, type HostFixture } from '../../support/host-fixture.js';
import { eventually, isRunning } from '../host/helpers.js';

const pids: number[] = [];
afterEach(() => {
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

async function call(h: HostFixture, op: AgentOp, args: AgentArgs = {}) {
  const lines: AgentLine[] = [];
  const io: AgentIO = { send: (l) => void lines.push(l), input: (async function* () {})() };
  const code = await serveAgentOp(op, args, {
    config: h.config,
    clock: systemClock,
    io,
    self: __filename,
    readStdin: () => Promise.resolve(''),
  });
  const result = lines.find((l) => l.type === 'result');
  const data = result?.type === 'result' && result.ok ? result.data : undefined;
  return { code, lines, data };
}

async function running(h: HostFixture): Promise<number> {
  await call(h, 'publish', { release: 'r1' });
  await call(h, 'switch', { release: 'r1' });
  await call(h, 'start');
  let pid: number | undefined;
  await eventually(async () => (pid = await h.pid()) !== undefined);
  pids.push(pid!);
  return pid!;
}

/** The app started as before handoff: not by the runtime, no `current` on the host. */
async function startByHand(h: HostFixture) {
  const child = spawn(process.execPath, [httpService], {
    env: {
      ...process.env,
      PORT: String(h.port),
      HANDOFF_STATE: path.join(h.dir, 'state'),
      HANDOFF_SERVICE: 'app',
    },
    stdio: 'ignore',
    detached: true,
  });
  child.unref();
  pids.push(child.pid!);
  await eventually(async () => (await h.pid()) !== undefined);
  return child;
}

describe('the stop operation', () => {
  it('proves the stop: the address refuses and the status command says stopped', async () => {
    const h = await hostFixture();
    const pid = await running(h);
    const r = await call(h, 'stop', { release: 'r2' });
    const report = r.data as StopReport;
    expect(report).toMatchObject({ stopped: true, proven: true, adopted: [] });
    expect(report.services[0]?.detail).toBe(
      `127.0.0.1:${h.port} refuses connections, status says stopped (exit-2)`,
    );
    expect(isRunning(pid)).toBe(false);
    // recorded for deploy status and check --live: which release stopped, nothing killed
    const status = (await call(h, 'status')).data as HostStatus;
    expect(status.lastStop).toMatchObject({ release: 'r1', killed: [] });
    expect(Date.parse(status.lastStop!.at)).not.toBeNaN();
  });

  it('does not take a stop command that exits 0 for a stop', async () => {
    const h = await hostFixture('', { stop: 'exit 0', stopTimeout: '500ms' });
    const pid = await running(h);
    const r = await call(h, 'stop', { release: 'r2' });
    expect(r.code).toBe(0);
    expect(r.data).toMatchObject({
      stopped: true,
      proven: false,
      services: [
        { service: 'app', proven: false, detail: `127.0.0.1:${h.port} still accepts connections` },
      ],
    });
    expect(isRunning(pid)).toBe(true);
  });

  it('adopts a service started by hand on a host with no release, and says so', async () => {
    const h = await hostFixture();
    await call(h, 'publish', { release: 'r1' });
    const child = await startByHand(h);
    const r = await call(h, 'stop', { release: 'r1' });
    expect(r.data).toMatchObject({ stopped: true, proven: true, adopted: ['app'] });
    expect(r.lines).toContainEqual(
      expect.objectContaining({
        type: 'event',
        event: 'adopt',
        message: 'adopting: app already answers; stopping it before the first release',
      }),
    );
    await eventually(() => !isRunning(child.pid!));
  });

  it('has nothing to stop on a host with no release where nothing answers', async () => {
    const h = await hostFixture();
    await call(h, 'publish', { release: 'r1' });
    const r = await call(h, 'stop', { release: 'r1' });
    expect(r.data).toEqual({ stopped: false, adopted: [], services: [], proven: true });
    expect(r.lines.filter((l) => l.type === 'event')).toEqual([]);
  });

  it('adopts only what runs: never runs the stop of a service it did not find', async () => {
    const marker = 'never-stopped';
    const h = await hostFixture('', {
      moreServices: `  - name: worker
    check: { runtime: true }
    start: 'true'
    stop: 'touch ${marker}; exit 7'
    status: 'exit 3'`,
    });
    await call(h, 'publish', { release: 'r1' });
    await startByHand(h);
    const r = await call(h, 'stop', { release: 'r1' });
    expect(r.data).toMatchObject({ stopped: true, proven: true, adopted: ['app'] });
    await expect(access(path.join(h.dir, 'root', 'releases', 'r1', marker))).rejects.toThrow();
  });

  it('starts only the services it is given, and refuses a name it does not know', async () => {
    const h = await hostFixture();
    await call(h, 'publish', { release: 'r1' });
    await call(h, 'switch', { release: 'r1' });
    expect((await call(h, 'start', { services: '' })).data).toEqual({ started: [], running: [] });
    expect(await h.pid()).toBeUndefined();
    const wrong = await call(h, 'start', { services: 'nope' });
    expect(wrong.code).toBe(2);
    const r = await call(h, 'start', { services: 'app' });
    expect(r.data).toEqual({ started: ['app'], running: [] });
    let pid: number | undefined;
    await eventually(async () => (pid = await h.pid()) !== undefined);
    pids.push(pid!);
  });

  it('with ifStopped starts what is stopped and leaves what still runs', async () => {
    const h = await hostFixture();
    const pid = await running(h);
    expect((await call(h, 'start', { ifStopped: true })).data).toEqual({
      started: [],
      running: ['app'],
    });
    expect((await call(h, 'stop', { release: 'r1' })).data).toMatchObject({ proven: true });
    expect((await call(h, 'start', { ifStopped: true })).data).toEqual({
      started: ['app'],
      running: [],
    });
    let again: number | undefined;
    await eventually(async () => (again = await h.pid()) !== pid && again !== undefined);
    pids.push(again!);
  });
});
