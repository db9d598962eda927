import type { BalancerConfig, BalancerEntry, Config } from '../../src/config/types.js';

/** `balancers:` of one entry, named by its kind, with no targets of its own. */
export function oneBalancer(b: BalancerConfig, name: string = b.kind): BalancerEntry[] {
  return [{ ...b, name, targets: {} }];
}

/** A normalized Config built by hand, for unit tests that must not depend on the loader. */
export function testConfig(overrides: Partial<Config> = {}, hosts = 3): Config {
  return {
    source: 'test.yml',
    service: 'api',
    ssh: {
      user: 'deploy',
      port: 22,
      knownHosts: '/dev/null',
      connectTimeout: 10_000,
      maxConnections: 50,
      sudo: false,
    },
    hosts: Array.from({ length: hosts }, (_, i) => ({
      name: `web-${i + 1}`,
      address: `127.0.10.${i + 1}`,
      target: `web-${i + 1}`,
    })),
    balancers: oneBalancer({ kind: 'haproxy', socket: '/run/haproxy.sock', backend: 'be_api' }),
    drain: {
      method: 'health',
      answer: 503,
      overlap: 15_000,
      maxRequest: 30_000,
      stopTimeout: 60_000,
    },
    rollout: {
      batch: { kind: 'count', count: 1 },
      minHealthy: 1,
      verifySuccesses: 2,
      verifyTimeout: 120_000,
      rollback: true,
      keepReleases: 5,
      uploadConcurrency: 4,
      maxTimeBack: 60_000,
      onFailure: 'stop',
      superseded: 'deploy',
      unreachable: 'fail',
      maxUnreachable: { kind: 'count', count: 1 },
      allowDowntime: false,
    },
    host: {
      root: '/srv/handoff/api',
      lock: '/var/lock/handoff/api',
      state: '/run/handoff/api',
      agent: '/opt/handoff',
    },
    runtime: { kind: 'command' },
    env: { clear: {}, secret: [] },
    services: [
      {
        name: 'app',
        check: {
          kind: 'http',
          url: 'http://127.0.0.1:8080/health',
          timeout: 2000,
          expectStatus: 200,
          expectRelease: false,
        },
        stopProof: true,
      },
    ],
    watchdog: {
      every: 60_000,
      failuresBeforeRestart: 4,
      successesBeforeHealthy: 2,
      startPeriod: 60_000,
      maxRestarts: 3,
      restartWindow: 1_800_000,
    },
    hooks: { timeout: 300_000 },
    lease: {
      store: 'hosts',
      endpoints: [],
      prefix: '/handoff',
      passwordEnv: 'HANDOFF_ETCD_PASSWORD',
    },
    ...overrides,
  };
}

/** `rollout:` with a one-host canary judged by the balancers' counters. */
export function withBalancerCanary(
  rollout: Config['rollout'],
  { bake = 60_000, minRequests = 100 }: { bake?: number; minRequests?: number } = {},
): Config['rollout'] {
  return {
    ...rollout,
    canary: { hosts: { kind: 'count', count: 1 }, bake },
    judgement: {
      source: 'balancer',
      commandTimeout: 10_000,
      margin: 0.01,
      minRequests,
      inconclusive: 'fail',
      poll: 5_000,
    },
  };
}
