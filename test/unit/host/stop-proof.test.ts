import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceConfig } from '../../../src/config/types.js';
import type { Runtime, ServiceStatus } from '../../../src/host/runtime/runtime.js';
import { proveStopped, stopProofMethods } from '../../../src/host/stop-proof.js';
import { FakeClock } from '../../support/fake-clock.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

async function listening(): Promise<number> {
  const server = createServer((socket) => socket.destroy());
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as { port: number }).port;
}

/** A runtime whose status answers what the test says (our own interface). */
function runtimeSaying(state: ServiceStatus['state'], detail: string = state): Runtime {
  const none = () => Promise.resolve();
  return {
    release: 'r1',
    prepare: none,
    start: none,
    stop: none,
    restart: none,
    logsCommands: () => Promise.resolve([]),
    status: () => Promise.resolve({ state, detail }),
  };
}

const tcp = (port: number, more: Partial<ServiceConfig> = {}): ServiceConfig => ({
  name: 'db-proxy',
  check: { kind: 'tcp', host: '127.0.0.1', port, timeout: 1_000 },
  stopProof: true,
  ...more,
});
const worker: ServiceConfig = {
  name: 'worker',
  check: { kind: 'heartbeat', dir: 'marks', maxAge: 5_000, expected: 1 },
  stopProof: true,
};

describe('the stop proof', () => {
  it('keeps looking until its deadline, then names what still listens', async () => {
    const clock = new FakeClock();
    const port = await listening();
    const proofs = await proveStopped([tcp(port)], { clock, deadline: clock.now() + 1_000 });
    expect(proofs).toEqual([
      { service: 'db-proxy', proven: false, detail: `127.0.0.1:${port} still accepts connections` },
    ]);
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(1_000);
  });

  it('does not take a closed port for a stop while the runtime says the service runs', async () => {
    const clock = new FakeClock();
    const port = await listening();
    servers.pop()?.close();
    const proofs = await proveStopped([tcp(port)], {
      clock,
      deadline: clock.now(),
      runtime: runtimeSaying('running'),
    });
    expect(proofs[0]).toMatchObject({
      proven: false,
      detail: 'its status still says running (running)',
    });
  });

  it('marks a service whose container ended by SIGKILL (exit 137) as killed, and a clean exit as not', async () => {
    const clock = new FakeClock();
    const killed = await proveStopped([worker], {
      clock,
      deadline: clock.now(),
      runtime: runtimeSaying('stopped', 'exited-137'),
    });
    expect(killed).toEqual([
      {
        service: 'worker',
        proven: true,
        detail: 'status says stopped (exited-137)',
        killed: true,
      },
    ]);
    const clean = await proveStopped([worker], {
      clock,
      deadline: clock.now(),
      runtime: runtimeSaying('stopped', 'exited-0'),
    });
    expect(clean[0]).not.toHaveProperty('killed');
  });

  it('does not take a status that did not answer for a stop', async () => {
    const clock = new FakeClock();
    const proofs = await proveStopped([worker], {
      clock,
      deadline: clock.now(),
      runtime: runtimeSaying('unknown', 'timeout'),
    });
    expect(proofs[0]).toMatchObject({
      proven: false,
      detail: 'its status did not answer (timeout)',
    });
  });

  it('proves a worker without an address by its status alone', async () => {
    const clock = new FakeClock();
    const proofs = await proveStopped([worker], {
      clock,
      deadline: clock.now(),
      runtime: runtimeSaying('stopped', 'exit-3'),
    });
    expect(proofs).toEqual([
      { service: 'worker', proven: true, detail: 'status says stopped (exit-3)' },
    ]);
    // and looked a second time, after a pause a respawned process would show in
    expect(clock.sleeps).toEqual([300]);
  });

  it('catches a process a supervisor brings back after the stop', async () => {
    const clock = new FakeClock();
    const states: ServiceStatus['state'][] = ['stopped', 'running'];
    const respawning: Runtime = {
      ...runtimeSaying('running'),
      status: () => {
        const state = states.shift() ?? 'running';
        return Promise.resolve({ state, detail: state });
      },
    };
    const proofs = await proveStopped([worker], {
      clock,
      deadline: clock.now() + 1_000,
      runtime: respawning,
    });
    expect(proofs[0]).toMatchObject({
      proven: false,
      detail: 'its status still says running (running)',
    });
  });

  it('cannot prove a service nothing can see', async () => {
    const clock = new FakeClock();
    const proofs = await proveStopped([worker], { clock, deadline: clock.now() });
    expect(proofs[0]).toMatchObject({ proven: false });
  });

  it('skips a service that opted out with stop_proof: false, even while its address listens', async () => {
    const clock = new FakeClock();
    const port = await listening();
    const proofs = await proveStopped([tcp(port, { stopProof: false })], {
      clock,
      deadline: clock.now() + 5_000,
    });
    expect(proofs).toEqual([{ service: 'db-proxy', proven: true, detail: 'stop_proof: false' }]);
    expect(clock.sleeps).toEqual([]);
  });

  it('says in words what proves each service for deploy check', () => {
    const web: ServiceConfig = {
      name: 'web',
      check: {
        kind: 'http',
        url: 'https://[::1]/health',
        timeout: 1_000,
        expectStatus: 200,
        expectRelease: false,
      },
      stopProof: true,
    };
    expect(stopProofMethods(web, { kind: 'command' })).toEqual([
      '[::1]:443 refuses connections',
      'its status command exits non-zero',
    ]);
    expect(stopProofMethods(worker, { kind: 'compose', composeFile: 'c.yml' })).toEqual([
      'compose shows it not running',
    ]);
    expect(stopProofMethods({ ...web, stopProof: false }, { kind: 'command' })).toEqual([]);
  });
});
