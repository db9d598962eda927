import { describe, expect, it } from 'vitest';
import type { ServiceConfig } from '../../../../src/config/types.js';
import { ConfigError, UsageError } from '../../../../src/errors.js';
import { commandInvocation, findService } from '../../../../src/host/runtime/command-invocation.js';
import { runtimeSettings, type RuntimeSettings } from '../../../../src/host/runtime/runtime.js';
import { oneBalancer, testConfig } from '../../../support/config.js';

const web: ServiceConfig = {
  name: 'web',
  check: { kind: 'runtime', timeout: 2_000 },
  start: './bin/web --port 8080 &',
  stop: 'kill "$(cat "$HANDOFF_STATE/web.pid")"',
  status: 'test -f "$HANDOFF_STATE/web.pid"',
  stopProof: true,
};
const worker: ServiceConfig = {
  name: 'worker',
  check: { kind: 'runtime', timeout: 2_000 },
  start: './bin/worker &',
  stopProof: true,
};

const settings: RuntimeSettings = {
  project: 'api',
  root: '/srv/handoff/api',
  state: '/run/handoff/api',
  stopTimeout: 150_000,
  drainAnswer: 503,
  secretNames: [],
  runtime: { kind: 'command' },
  services: [web, worker],
};

describe('a command runtime invocation', () => {
  it('runs the start command through sh -c in the release directory with the release in the environment', () => {
    expect(commandInvocation(settings, 'r42', web, 'start')).toEqual({
      argv: ['sh', '-c', './bin/web --port 8080 &'],
      cwd: '/srv/handoff/api/releases/r42',
      env: {
        RELEASE: 'r42',
        HANDOFF_SERVICE: 'web',
        HANDOFF_STATE: '/run/handoff/api',
        HANDOFF_STOP_TIMEOUT: '150',
      },
      outputFile: '/srv/handoff/api/logs/web.start.log',
    });
  });

  it("exports the balancer's detection time when deploy.yml holds it, for the health library's drain delay", () => {
    const call = commandInvocation({ ...settings, detectTime: 10_000 }, 'r42', web, 'start');
    expect(call.env).toMatchObject({ HANDOFF_STOP_TIMEOUT: '150', HANDOFF_DETECT_TIME: '10' });
    expect(commandInvocation(settings, 'r42', web, 'start').env).not.toHaveProperty(
      'HANDOFF_DETECT_TIME',
    );
  });

  it('exports the drain answer only when it is 404, so the health library answers a drain with it', () => {
    const call = commandInvocation({ ...settings, drainAnswer: 404 }, 'r42', web, 'start');
    expect(call.env).toMatchObject({ HANDOFF_DRAIN_ANSWER: '404' });
    expect(commandInvocation(settings, 'r42', web, 'start').env).not.toHaveProperty(
      'HANDOFF_DRAIN_ANSWER',
    );
  });

  it("exports the heartbeat check's marks directory, resolved against host.state, to that service only", () => {
    const beating: ServiceConfig = {
      ...worker,
      check: { kind: 'heartbeat', dir: 'workers', maxAge: 30_000 },
    };
    const withMarks = { ...settings, services: [web, beating] };
    expect(commandInvocation(withMarks, 'r42', beating, 'start').env).toMatchObject({
      HANDOFF_MARKS_DIR: '/run/handoff/api/workers',
    });
    const absolute: ServiceConfig = {
      ...beating,
      check: { kind: 'heartbeat', dir: '/var/marks', maxAge: 30_000 },
    };
    expect(commandInvocation(withMarks, 'r42', absolute, 'start').env.HANDOFF_MARKS_DIR).toBe(
      '/var/marks',
    );
    expect(commandInvocation(withMarks, 'r42', web, 'start').env).not.toHaveProperty(
      'HANDOFF_MARKS_DIR',
    );
  });

  it('bounds the stop command by the stop timeout', () => {
    const stop = commandInvocation(settings, 'r42', web, 'stop');
    expect(stop.argv).toEqual(['sh', '-c', 'kill "$(cat "$HANDOFF_STATE/web.pid")"']);
    expect(stop.timeoutMs).toBe(150_000);
    expect(stop.outputFile).toBe('/srv/handoff/api/logs/web.stop.log');
  });

  it('passes a release id with shell characters only through the environment', () => {
    const call = commandInvocation(settings, '$(id)', web, 'status');
    expect(call.argv).toEqual(['sh', '-c', 'test -f "$HANDOFF_STATE/web.pid"']);
    expect(call.env.RELEASE).toBe('$(id)');
  });

  it('refuses a service without the command as a config problem with its key path', () => {
    const error = (() => {
      try {
        commandInvocation(settings, 'r42', worker, 'stop');
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      'services[1].stop: required when runtime.kind is command',
    );
  });

  it('refuses an unknown service name, listing the known ones', () => {
    expect(() => findService(settings, 'gateway')).toThrow(UsageError);
    expect(() => findService(settings, 'gateway')).toThrow(
      'unknown service gateway; deploy.yml lists web, worker',
    );
  });

  it('knows the detection time from the settings deploy.yml holds, for any balancer kind', () => {
    const base = testConfig();
    const withSettings = testConfig({
      balancers: oneBalancer({
        kind: 'haproxy',
        socket: '/run/haproxy.sock',
        backend: 'be_api',
        healthCheck: {
          interval: 5_000,
          timeout: 2_000,
          unhealthyThreshold: 3,
          healthyThreshold: 2,
        },
      }),
    });
    expect(runtimeSettings(withSettings).detectTime).toBe(15_000);
    // a pair: the drain is seen by both only after the slower one's detection
    const pair = testConfig({
      balancers: [
        ...oneBalancer(
          {
            kind: 'static',
            healthCheck: {
              interval: 1_000,
              timeout: 500,
              unhealthyThreshold: 2,
              healthyThreshold: 2,
            },
          },
          'lb-a',
        ),
        ...oneBalancer(
          {
            kind: 'static',
            healthCheck: {
              interval: 3_000,
              timeout: 500,
              unhealthyThreshold: 3,
              healthyThreshold: 2,
            },
          },
          'lb-b',
        ),
      ],
    });
    expect(runtimeSettings(pair).detectTime).toBe(9_000);
    expect(runtimeSettings(base).detectTime).toBeUndefined();
  });
});
