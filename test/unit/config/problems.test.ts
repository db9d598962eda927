import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';
import { minimal, problemsOf, tempDir, writeConfig } from './temp-config.js';

describe('a bad deploy.yml', () => {
  it('that does not exist is one line naming the file and the way out', async () => {
    const file = path.join(await tempDir(), 'deploy.yml');
    const error = await loadConfig(file, { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toBe(
      `cannot read ${file}: no such file; pass -c FILE or create one with 'deploy init'`,
    );
    expect((error as ConfigError).exitCode).toBe(2);
  });

  it('with a YAML syntax error points at the line and column', async () => {
    expect(await problemsOf('service: api\nhosts: [\nssh: {}\n')).toEqual([
      'invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] (FILE:3:1)',
    ]);
  });

  it('with a value of the wrong type names the key path, what was expected and where', async () => {
    const text = minimal.replace('address: 10.0.0.2 }', 'address: 10.0.0.2, ssh_port: "22" }');
    expect(await problemsOf(text)).toEqual([
      'hosts[1].ssh_port: expected a number, got a string "22" (FILE:6:49)',
    ]);
  });

  it('with a misspelt key says it is unknown and suggests the real one', async () => {
    const text = minimal.replace('  unhealthy_threshold: 2', '  unhealty_threshold: 2');
    expect(await problemsOf(text)).toEqual([
      "balancer.unhealty_threshold: unknown key (did you mean 'unhealthy_threshold'?) (FILE:11:3)",
    ]);
  });

  it('with a negative duration says it must be positive', async () => {
    const text = minimal.replace('interval: 5s', 'interval: -5s');
    expect(await problemsOf(text)).toEqual([
      'balancer.interval: must be positive, got "-5s" (FILE:9:13)',
    ]);
  });

  it('with a zero duration says it must be positive', async () => {
    const text = minimal.replace('timeout: 2s', 'timeout: 0s');
    expect(await problemsOf(text)).toEqual([
      'balancer.timeout: must be positive, got "0s" (FILE:10:12)',
    ]);
  });

  it('with an unparseable duration shows how to write one', async () => {
    const text = `${minimal}drain: { overlap: soon }\n`;
    expect(await problemsOf(text)).toEqual([
      'drain.overlap: "soon" is not a duration; write it like 500ms, 15s, 2m, 1h or 1m30s (FILE:19:19)',
    ]);
  });

  it('with a duration missing its unit refuses to guess', async () => {
    const text = `${minimal}watchdog: { every: 60 }\n`;
    expect(await problemsOf(text)).toEqual([
      'watchdog.every: a duration needs a unit: 60 is ambiguous; write it like 500ms, 15s, 2m, 1h or 1m30s (FILE:19:20)',
    ]);
  });

  it('with two hosts of the same name points at the second', async () => {
    const text = minimal.replace('name: web-2', 'name: web-1');
    expect(await problemsOf(text)).toEqual([
      'hosts[1].name: duplicate host name "web-1" (also hosts[0]); each must be unique (FILE:6:13)',
    ]);
  });

  it('with a batch larger than the fleet says how many hosts there are', async () => {
    const text = `${minimal}rollout:\n  batch: 3\n`;
    expect(await problemsOf(text)).toEqual([
      'rollout.batch: 3 is more than the 2 hosts in hosts; use at most 2 or a percentage (FILE:20:10)',
    ]);
  });

  it('with several problems reports all of them at once, in file order', async () => {
    const text = minimal
      .replace('  user: deploy\n', '  user: deploy\n  prot: 2222\n')
      .replace('name: web-2', 'name: web-1')
      .replace('interval: 5s', 'interval: 5');
    expect(await problemsOf(text)).toEqual([
      "ssh.prot: unknown key (did you mean 'port'?) (FILE:4:3)",
      'hosts[1].name: duplicate host name "web-1" (also hosts[0]); each must be unique (FILE:7:13)',
      'balancer.interval: a duration needs a unit: 5 is ambiguous; write it like 500ms, 15s, 2m, 1h or 1m30s (FILE:10:13)',
    ]);
  });

  it('with a missing key points at the mapping that lacks it', async () => {
    const text = minimal.replace('  - { name: web-2, address: 10.0.0.2 }', '  - { name: web-2 }');
    expect(await problemsOf(text)).toEqual(['hosts[1].address: required (FILE:6:5)']);
  });

  it('with a misspelt key of a block that has no default still says only the typo', async () => {
    const text = minimal.replace('  user: deploy', '  usr: deploy');
    expect(await problemsOf(text)).toEqual([
      "ssh.usr: unknown key (did you mean 'user'?) (FILE:3:3)",
    ]);
  });

  it('with a misspelt command of the command runtime says only the typo', async () => {
    const text = minimal
      .replace('  kind: compose\n  compose_file: compose.yml\n', '  kind: command\n')
      .concat('    strat: ./start\n    stop: ./stop\n    status: ./status\n');
    expect(await problemsOf(text)).toEqual([
      "services[0].strat: unknown key (did you mean 'start'?) (FILE:18:5)",
    ]);
  });

  it('with an unknown key nothing resembles gives no guess', async () => {
    const text = `${minimal}colour: blue\n`;
    expect(await problemsOf(text)).toEqual(['colour: unknown key (FILE:19:1)']);
  });

  it('with an unknown balancer kind lists the kinds there are', async () => {
    const text = minimal.replace('kind: static', 'kind: traefik');
    expect(await problemsOf(text)).toEqual([
      'balancer.kind: must be one of alb, haproxy, nginx, static (FILE:8:9)',
    ]);
  });

  it('with a check of two kinds asks for exactly one', async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: "http://127.0.0.1:8080/health", tcp: "127.0.0.1:8080" }',
    );
    expect(await problemsOf(text)).toEqual([
      'services[0].check: needs exactly one of http, tcp, heartbeat, runtime (got http and tcp) (FILE:18:12)',
    ]);
  });

  it('with expect_release on a tcp check says only http can expect a release', async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { tcp: "127.0.0.1:8080", expect_release: true }',
    );
    expect(await problemsOf(text)).toEqual([
      'services[0].check.expect_release: only an http check can expect a release (the x-release header); remove it or use an http check (FILE:18:53)',
    ]);
  });

  it.each([
    ['heartbeat', '{ heartbeat: { dir: marks, max_age: 30s, expected: 2 }, expect_release: true }'],
    ['runtime', '{ runtime: true, expect_release: true }'],
  ])('with expect_release on a %s check is the same error', async (_kind, check) => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      `check: ${check}`,
    );
    const problems = await problemsOf(text);
    expect(problems).toEqual([
      expect.stringMatching(
        /^services\[0\]\.check\.expect_release: only an http check can expect a release .*\(FILE:18:\d+\)$/,
      ),
    ]);
  });

  it('with expect_release given twice, differently, asks for it once', async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: { url: "http://127.0.0.1:8080/health", expect_release: false }, expect_release: true }',
    );
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(
      /^services\[0\]\.check\.expect_release: contradicts http\.expect_release \(false\); give it once, in http or beside it \(FILE:18:\d+\)$/,
    );
  });

  it('with expect_release that is not a boolean says so', async () => {
    const text = minimal.replace(
      'check: { http: "http://127.0.0.1:8080/health" }',
      'check: { http: { url: "http://127.0.0.1:8080/health", expect_release: yes } }',
    );
    expect(await problemsOf(text)).toEqual([
      'services[0].check.http.expect_release: must be true or false (FILE:18:75)',
    ]);
  });

  it('with the command runtime requires start, stop and status on each service', async () => {
    const text = minimal.replace(
      '  kind: compose\n  compose_file: compose.yml\n',
      '  kind: command\n',
    );
    expect(await problemsOf(text)).toEqual([
      'services[0].start: required when runtime.kind is command (FILE:16:5)',
      'services[0].stop: required when runtime.kind is command (FILE:16:5)',
      'services[0].status: required when runtime.kind is command (FILE:16:5)',
    ]);
  });

  it('with the compose runtime rejects start, stop and status commands', async () => {
    const text = `${minimal}    start: docker compose up -d web\n`;
    expect(await problemsOf(text)).toEqual([
      'services[0].start: not used with runtime.kind compose (compose runs the services); remove it (FILE:19:12)',
    ]);
  });

  it('with the compose runtime rejects a logs command (deploy logs reads compose logs)', async () => {
    const text = `${minimal}    logs: journalctl -u web\n`;
    expect(await problemsOf(text)).toEqual([
      'services[0].logs: not used with runtime.kind compose (deploy logs reads compose logs); remove it (FILE:19:11)',
    ]);
  });

  it('with a service name outside [a-z0-9-] says which characters are allowed', async () => {
    const text = minimal.replace('service: api', 'service: My_API');
    expect(await problemsOf(text)).toEqual([
      'service: must be 1–63 characters of a-z, 0-9 and -, starting with a letter or digit (FILE:1:10)',
    ]);
  });

  it('with half the health-check settings of a live balancer asks for all of them', async () => {
    const text = minimal.replace(
      /balancer:\n[\s\S]*?(?=runtime:)/,
      'balancer:\n  kind: haproxy\n  socket: /run/haproxy.sock\n  backend: be_api\n  interval: 2s\n',
    );
    expect(await problemsOf(text)).toEqual([
      'balancer.timeout: required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none) (FILE:8:3)',
      'balancer.unhealthy_threshold: required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none) (FILE:8:3)',
      'balancer.healthy_threshold: required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none) (FILE:8:3)',
    ]);
  });

  it('that is empty says so and how to start one', async () => {
    expect(await problemsOf('')).toEqual([
      "the file is empty; 'deploy init' writes a starter to fill in (FILE:1:1)",
    ]);
  });
});

describe('rollout.unreachable', () => {
  it('max_unreachable without unreachable: skip is refused, saying what to add', async () => {
    const text = `${minimal}rollout: { max_unreachable: 2 }\n`;
    expect(await problemsOf(text)).toEqual([
      'rollout.max_unreachable: applies only with rollout.unreachable: skip; add that, or remove this key (FILE:19:29)',
    ]);
  });

  it('a percentage above 100 is refused', async () => {
    const text = `${minimal}rollout: { unreachable: skip, max_unreachable: "150%" }\n`;
    expect(await problemsOf(text)).toEqual([
      'rollout.max_unreachable: a percentage must be between 0% and 100% (FILE:19:48)',
    ]);
  });

  it('skip with a percentage is read as written', async () => {
    const file = await writeConfig(
      `${minimal}rollout: { unreachable: skip, max_unreachable: "2%" }\n`,
    );
    const { rollout } = await loadConfig(file, { env: {} });
    expect([rollout.unreachable, rollout.maxUnreachable]).toEqual([
      'skip',
      { kind: 'percent', percent: 2 },
    ]);
  });
});
