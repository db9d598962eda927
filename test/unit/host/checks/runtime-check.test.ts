import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../../src/clock.js';
import { OperationError } from '../../../../src/errors.js';
import { runCheck } from '../../../../src/host/checks/run.js';
import type { Runtime, ServiceStatus } from '../../../../src/host/runtime/runtime.js';

/** A runtime that answers one status, and records what it was asked. */
function scripted(answer: ServiceStatus | Error) {
  const asked: { service: string; timeoutMs?: number }[] = [];
  const runtime: Runtime = {
    release: 'r1',
    prepare: () => Promise.resolve(),
    start: () => Promise.resolve(),
    stop: () => Promise.resolve(),
    restart: () => Promise.resolve(),
    logsCommands: () => Promise.resolve([]),
    status: (service, options) => {
      asked.push({
        service,
        ...(options?.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
      return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
    },
  };
  return { runtime, asked };
}

const check = { kind: 'runtime' as const, timeout: 1_500 };
const deps = (runtime?: Runtime) => ({
  clock: systemClock,
  state: '/run/x',
  service: 'gateway',
  ...(runtime ? { runtime } : {}),
});

describe('the runtime check', () => {
  it('passes when the runtime says the service runs, asking within the check timeout', async () => {
    const { runtime, asked } = scripted({ state: 'running', detail: 'running' });
    expect(await runCheck(check, deps(runtime))).toMatchObject({ ok: true, code: 'ok' });
    expect(asked).toEqual([{ service: 'gateway', timeoutMs: 1_500 }]);
  });

  it('fails with not-running and the runtime detail when the service is down', async () => {
    const { runtime } = scripted({ state: 'stopped', detail: 'exited' });
    expect(await runCheck(check, deps(runtime))).toMatchObject({
      ok: false,
      code: 'not-running',
      detail: 'exited',
    });
  });

  it('fails with unhealthy when a container healthcheck fails', async () => {
    const { runtime } = scripted({ state: 'unhealthy', detail: 'unhealthy' });
    expect(await runCheck(check, deps(runtime))).toMatchObject({ ok: false, code: 'unhealthy' });
  });

  it('fails with timeout when the status did not come in time', async () => {
    const { runtime } = scripted({ state: 'unknown', detail: 'timeout' });
    expect(await runCheck(check, deps(runtime))).toMatchObject({ ok: false, code: 'timeout' });
  });

  it('turns a runtime that throws into runtime-error instead of throwing', async () => {
    const { runtime } = scripted(new OperationError('cannot run docker: not found'));
    expect(await runCheck(check, deps(runtime))).toMatchObject({
      ok: false,
      code: 'runtime-error',
      detail: 'cannot run docker: not found',
    });
  });

  it('fails with runtime-error when there is no runtime to ask', async () => {
    expect(await runCheck(check, deps())).toMatchObject({ ok: false, code: 'runtime-error' });
  });
});
