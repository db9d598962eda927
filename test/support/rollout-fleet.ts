import type { Config } from '../../src/config/types.js';
import { MemoryLog } from '../../src/log.js';
import type { RolloutDeps } from '../../src/rollout/types.js';
import { testConfig } from './config.js';
import { FakeClock } from './fake-clock.js';
import { FakeBalancer, FakeHost } from './fake-fleet.js';

/** Fake hosts `web-N` behind a fake balancer, and the deps a rollout runs with. */
export function fleet(
  config: Config = testConfig(),
  release: string | null = 'r1',
  makeBalancer = (hosts: Map<string, FakeHost>, clock: FakeClock) => new FakeBalancer(hosts, clock),
) {
  const clock = new FakeClock();
  const hosts = new Map(config.hosts.map((h) => [h.target, new FakeHost(h.name, clock, release)]));
  const balancer = makeBalancer(hosts, clock);
  const controller = new AbortController();
  const log = new MemoryLog();
  const deps: RolloutDeps = {
    config,
    clock,
    log,
    signal: controller.signal,
    balancer,
    who: 'ci@runner',
    agent: (h) => Promise.resolve(hosts.get(h.target)!),
  };
  const host = (n: number) => hosts.get(`web-${n}`)!;
  const actions = (n: number) =>
    host(n).calls.filter(
      (c) => !['hello', 'status', 'node'].includes(c) && !c.startsWith('publish'),
    );
  return { clock, hosts, balancer, controller, log, deps, host, actions };
}

/** The error a promise rejects with; a promise that resolves fails the test. */
export async function refusal(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e as Error,
  );
}
