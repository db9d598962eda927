import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Balancer } from '../../../src/balancer/balancer.js';
import { haproxy } from '../../../src/balancer/haproxy/kind.js';
import { runCheck } from '../../../src/cli/check/check-command.js';
import type { Output } from '../../../src/cli/output.js';
import type { Config } from '../../../src/config/types.js';
import { testConfig, withBalancerCanary } from '../../support/config.js';
import { settings } from '../timing/fixture.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/** an HAProxy on its own host, and a canary judged by its counters: --live asks it twice over */
function sshHaproxyWithCanary(): Config {
  const base = testConfig({}, 2);
  return {
    ...base,
    balancers: [
      {
        kind: 'haproxy',
        socket: '/run/haproxy/admin.sock',
        backend: 'be_api',
        config: '/etc/haproxy/haproxy.cfg',
        ssh: { address: 'lb-1.internal' },
        name: 'lb-1',
        targets: {},
      },
    ],
    watchdog: { ...base.watchdog, every: 600_000 },
    rollout: withBalancerCanary(base.rollout),
  };
}

/** our Balancer interface, answering the settings and the config file it was asked for */
function fakeHaproxy(): Balancer & { readonly closed: () => number } {
  let closed = 0;
  return {
    kind: 'haproxy',
    settings: () => Promise.resolve(settings),
    configText: () => Promise.resolve('backend be_api\n  server web-1 127.0.10.1:8000 check\n'),
    states: () => Promise.resolve(new Map()),
    deregister: () => Promise.resolve(),
    register: () => Promise.resolve(),
    close: () => {
      closed += 1;
      return Promise.resolve();
    },
    closed: () => closed,
  };
}

describe('deploy check --live on a balancer on its own host', () => {
  it('opens it once: its settings, its config file and the canary estimate go through one connection, closed at the end', async () => {
    const balancer = fakeHaproxy();
    const create = vi.spyOn(haproxy, 'create').mockResolvedValue(balancer);
    const warnings: string[] = [];
    const out: Output = {
      json: false,
      emit: (e) => void (e.level === 'warn' && warnings.push(e.message)),
      text: () => undefined,
      result: () => undefined,
      raw: () => undefined,
    };
    await runCheck(sshHaproxyWithCanary(), out, {
      live: true,
      strict: false,
      wait: async () => {},
    });
    expect(create).toHaveBeenCalledTimes(1);
    expect(balancer.closed()).toBe(1);
    // the canary's estimate asked the balancer --live opened: a fake has no counters to read
    expect(warnings).toContain(
      "rollout.canary: could not read haproxy be_api's counters to estimate the canary's traffic",
    );
  });

  it('closes what it opened when reading a setting fails', async () => {
    const balancer = { ...fakeHaproxy(), settings: () => Promise.reject(new Error('EOF')) };
    let closed = 0;
    vi.spyOn(haproxy, 'create').mockResolvedValue({
      ...balancer,
      close: () => Promise.resolve(void (closed += 1)),
    });
    const out: Output = {
      json: false,
      emit: () => undefined,
      text: () => undefined,
      result: () => undefined,
      raw: () => undefined,
    };
    await expect(
      runCheck(sshHaproxyWithCanary(), out, { live: true, strict: false }),
    ).rejects.toThrow('EOF');
    expect(closed).toBe(1);
  });
});
