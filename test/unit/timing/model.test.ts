import { describe, expect, it } from 'vitest';
import type { Config } from '../../../src/config/types.js';
import { timingInputFromConfig, timingModel } from '../../../src/timing/model.js';
import { base, settings } from './fixture.js';

const config: Config = {
  source: 'deploy.yml',
  service: 'api',
  ssh: {
    user: 'deploy',
    port: 22,
    knownHosts: '/home/u/.ssh/known_hosts',
    connectTimeout: 10_000,
    maxConnections: 50,
    sudo: false,
  },
  hosts: [
    { name: 'web-1', address: '10.0.1.11', target: 'i-1' },
    { name: 'web-2', address: '10.0.1.12', target: 'i-2' },
    { name: 'web-3', address: '10.0.1.13', target: 'i-3' },
  ],
  balancers: [{ kind: 'static', healthCheck: settings, name: 'static', targets: {} }],
  drain: base.drain,
  rollout: base.rollout,
  hooks: { timeout: 300_000 },
  lease: {
    store: 'hosts',
    endpoints: [],
    prefix: '/handoff',
    passwordEnv: 'HANDOFF_ETCD_PASSWORD',
  },
  host: { root: '/srv/a', lock: '/var/lock/a', state: '/run/a', agent: '/opt/a' },
  runtime: { kind: 'compose', composeFile: 'infra/compose.yml' },
  env: { clear: {}, secret: [] },
  services: [
    {
      name: 'gateway',
      check: {
        kind: 'http',
        url: 'http://127.0.0.1/health',
        timeout: 2000,
        expectStatus: 200,
        expectRelease: false,
      },
      keepAliveTimeout: 65_000,
      stopProof: true,
    },
  ],
  watchdog: base.watchdog,
};

describe('timingInputFromConfig', () => {
  it('takes the numbers from the config and the settings it is given', () => {
    const live = { ...settings, interval: 30_000 };
    expect(timingInputFromConfig(config, live)).toEqual({
      settings: live,
      drain: base.drain,
      rollout: base.rollout,
      watchdog: base.watchdog,
      services: config.services,
      hosts: 3,
    });
  });
});

describe('timingModel', () => {
  it('checks every invariant in a fixed order', () => {
    const model = timingModel(timingInputFromConfig(config, settings));
    expect(model.invariants.map((i) => [i.id, i.ok])).toEqual([
      ['drain-before-stop', true],
      ['request-before-kill', true],
      ['check-timeout', true],
      ['capacity', true],
      ['keep-alive', true],
      ['time-back', true],
      ['watchdog-vs-drain', true],
    ]);
  });

  it('puts deregistration-delay after request-before-kill with method deregister', () => {
    const model = timingModel({ ...base, drain: { ...base.drain, method: 'deregister' } });
    expect(model.invariants.slice(1, 4).map((i) => i.id)).toEqual([
      'request-before-kill',
      'deregistration-delay',
      'check-timeout',
    ]);
  });
});
