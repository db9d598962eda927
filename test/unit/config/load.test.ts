import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { loadConfigFromJson } from '../../../src/config/parse.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { minimal, writeConfig } from './temp-config.js';

const example = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../infra/deploy.example.yml',
);

describe('loading deploy.yml', () => {
  it('loads the shipped example into durations in milliseconds', async () => {
    const config = await loadConfig(example, { env: {} });
    expect(config.hosts.map((h) => h.name)).toEqual(['web-1', 'web-2', 'web-3']);
    expect(config.balancers).toEqual([
      {
        kind: 'static',
        name: 'static',
        targets: {},
        healthCheck: {
          interval: 5_000,
          timeout: 2_000,
          unhealthyThreshold: 2,
          healthyThreshold: 2,
          idleTimeout: 60_000,
        },
      },
    ]);
    expect(config.services[0]).toMatchObject({ name: 'gateway', keepAliveTimeout: 65_000 });
    expect(config.services[1]?.check).toEqual({
      kind: 'heartbeat',
      dir: 'marks',
      maxAge: 30_000,
    });
  });

  it("reads a heartbeat check's expected as an optional minimum, kept or left out in the host config", async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { heartbeat: { dir: workers, max_age: 30s, expected: 3 } }',
    );
    const config = await loadConfig(await writeConfig(text), { env: {} });
    expect(config.services[0]?.check).toEqual({
      kind: 'heartbeat',
      dir: 'workers',
      maxAge: 30_000,
      expected: 3,
    });
    const without = await loadConfig(await writeConfig(text.replace(', expected: 3', '')), {
      env: {},
    });
    expect(without.services[0]?.check).toEqual({
      kind: 'heartbeat',
      dir: 'workers',
      maxAge: 30_000,
    });
    const published = loadConfigFromJson(toHostJson(without), '/etc/handoff/api.json');
    expect(published.services[0]?.check).toEqual(without.services[0]?.check);
  });

  it('returns a config frozen all the way down', async () => {
    const config = await loadConfig(example, { env: {} });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.hosts)).toBe(true);
    expect(Object.isFrozen(config.hosts[0])).toBe(true);
    expect(Object.isFrozen(config.balancers[0]?.healthCheck)).toBe(true);
    expect(Object.isFrozen(config.services[0]?.check)).toBe(true);
  });

  it("reads a check's own thresholds and keeps them through the published host config", async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: "http://127.0.0.1:8080/health", failures_before_restart: 6, successes_before_healthy: 3 }',
    );
    const config = await loadConfig(await writeConfig(text), { env: {} });
    expect(config.services[0]?.check).toMatchObject({
      failuresBeforeRestart: 6,
      successesBeforeHealthy: 3,
    });
    const published = loadConfigFromJson(toHostJson(config), '/etc/handoff/api.json');
    expect(published.services[0]?.check).toEqual(config.services[0]?.check);
    const plain = await loadConfig(await writeConfig(minimal), { env: {} });
    expect(plain.services[0]?.check).not.toHaveProperty('failuresBeforeRestart');
  });

  it('fills every default a minimal file leaves out', async () => {
    const file = await writeConfig(minimal);
    const config = await loadConfig(file, { env: { HOME: '/home/op' } });
    expect(config.ssh).toEqual({
      user: 'deploy',
      port: 22,
      knownHosts: '/home/op/.ssh/known_hosts',
      connectTimeout: 10_000,
      maxConnections: 50,
      sudo: false,
    });
    expect(config.env).toEqual({ clear: {}, secret: [] });
    expect(config.hosts[0]).toEqual({ name: 'web-1', address: '10.0.0.1', target: '10.0.0.1' });
    expect(config.drain).toEqual({
      method: 'health',
      answer: 503,
      overlap: 15_000,
      maxRequest: 30_000,
      stopTimeout: 150_000,
    });
    expect(config.rollout).toEqual({
      batch: { kind: 'count', count: 1 },
      minHealthy: 1,
      verifySuccesses: 2,
      verifyTimeout: 120_000,
      rollback: true,
      maxTimeBack: 60_000,
      onFailure: 'stop',
      superseded: 'deploy',
      unreachable: 'fail',
      maxUnreachable: { kind: 'count', count: 1 },
      allowDowntime: false,
      keepReleases: 5,
      uploadConcurrency: 4,
      bake: 0,
      watch: 0,
      judgement: {
        source: 'service',
        commandTimeout: 10_000,
        margin: 0.01,
        latencyFloor: 5,
        minRequests: 100,
        inconclusive: 'fail',
        poll: 5_000,
      },
    });
    expect(config.hooks).toEqual({ timeout: 300_000 });
    expect(config.host).toEqual({
      root: '/srv/handoff/api',
      lock: '/run/handoff/api.lock',
      state: '/run/handoff/api',
      agent: '/opt/handoff',
    });
    expect(config.watchdog).toEqual({
      every: 60_000,
      failuresBeforeRestart: 4,
      successesBeforeHealthy: 2,
      startPeriod: 60_000,
      maxRestarts: 3,
      restartWindow: 1_800_000,
    });
    expect(config.services[0]?.check).toEqual({
      kind: 'http',
      url: 'http://127.0.0.1:8080/health',
      expectStatus: 200,
      expectRelease: false,
      timeout: 2_000,
    });
    expect(config.services[0]?.stopProof).toBe(true);
  });

  it('reads expect_release in the http block or beside it, and stop_proof per service', async () => {
    const long = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: { url: "http://127.0.0.1:8080/health", expect_release: true } }\n    stop_proof: false',
    );
    const config = await loadConfig(await writeConfig(long), { env: {} });
    expect(config.services[0]).toMatchObject({
      check: { kind: 'http', expectRelease: true },
      stopProof: false,
    });
    const short = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: "http://127.0.0.1:8080/health", expect_release: true }',
    );
    const again = await loadConfig(await writeConfig(short), { env: {} });
    expect(again.services[0]?.check).toMatchObject({ kind: 'http', expectRelease: true });
    // and both survive the host config that setup publishes
    const published = loadConfigFromJson(toHostJson(config), '/etc/handoff/api.json');
    expect(published.services[0]).toMatchObject({
      check: { expectRelease: true },
      stopProof: false,
    });
  });

  it('resolves the compose file beside deploy.yml and expands ~ in local paths', async () => {
    const file = await writeConfig(
      minimal.replace('  user: deploy\n', '  user: deploy\n  identity_file: ~/.ssh/id_ed25519\n'),
    );
    const config = await loadConfig(file, { env: { HOME: '/home/op' } });
    expect(config.runtime).toEqual({
      kind: 'compose',
      composeFile: path.join(path.dirname(file), 'compose.yml'),
    });
    expect(config.ssh.identityFile).toBe('/home/op/.ssh/id_ed25519');
  });

  it('reads a percentage batch, a tcp check and a runtime check', async () => {
    const file = await writeConfig(
      `${minimal}  - { name: db, check: { tcp: "[::1]:5432", timeout: 500ms } }
  - { name: jobs, check: { runtime: true } }
rollout: { batch: "50%" }
`,
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.rollout.batch).toEqual({ kind: 'percent', percent: 50 });
    expect(config.services.map((s) => s.check)).toEqual([
      expect.objectContaining({ kind: 'http' }),
      { kind: 'tcp', host: '::1', port: 5432, timeout: 500 },
      { kind: 'runtime', timeout: 2_000 },
    ]);
  });

  it('loads a .json file the same way as YAML', async () => {
    const yamlConfig = await loadConfig(example, { env: {} });
    const file = await writeConfig(toHostJson(yamlConfig), 'api.json');
    const jsonConfig = await loadConfig(file, { env: {} });
    expect({ ...jsonConfig, source: '' }).toEqual({ ...yamlConfig, source: '' });
  });

  it('reads back the host config that setup publishes as exactly the same config', async () => {
    const config = await loadConfig(example, { env: {} });
    const text = toHostJson(config);
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    const back = loadConfigFromJson(text, '/etc/handoff/api.json', { env: {} });
    expect({ ...back, source: config.source }).toEqual(config);
  });
});
