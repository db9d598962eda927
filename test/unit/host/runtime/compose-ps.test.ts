import { describe, expect, it } from 'vitest';
import { composeServiceStatus, parseComposePs } from '../../../../src/host/runtime/compose-ps.js';

const row = (Service: string, State: string, Health = '') => ({
  Name: `api-${Service}-1`,
  Service,
  State,
  Health,
});

describe('docker compose ps output', () => {
  it('reads one JSON object per line (compose 2.21 and later)', () => {
    const out = `${JSON.stringify(row('gateway', 'running', 'healthy'))}\n${JSON.stringify(row('worker', 'exited'))}\n`;
    expect(parseComposePs(out)).toEqual([
      { service: 'gateway', state: 'running', health: 'healthy' },
      { service: 'worker', state: 'exited', health: '' },
    ]);
  });

  it('reads one JSON array (older compose)', () => {
    expect(parseComposePs(JSON.stringify([row('gateway', 'running')]))).toEqual([
      { service: 'gateway', state: 'running', health: '' },
    ]);
  });

  it('reads empty output as no containers', () => {
    expect(parseComposePs('\n')).toEqual([]);
  });

  it('gives up on output that is neither JSON nor a table it knows', () => {
    expect(parseComposePs('NAME   IMAGE   STATUS')).toBeUndefined();
  });

  // as docker-compose 1.29.2 prints it against Podman (captured on this machine)
  const v1 = [
    '        Name                     Command               State     Ports',
    '-------------------------------------------------------------------------',
    'api_gateway_1        /bin/sh -c exec httpd -f - ...   Up (healthy)        ',
    'api_publish_worker_1 node worker.mjs                  Exit 137            ',
    'ccc41332fb52_api_cache_1  /bin/sh -c exec httpd -f - ...   Up ()               ',
  ].join('\n');

  it("reads docker-compose 1.x's table, naming services by the project's container names", () => {
    expect(parseComposePs(v1, 'api')).toEqual([
      { service: 'gateway', state: 'running', health: 'healthy' },
      { service: 'publish_worker', state: 'exited', health: '', exitCode: 137 },
      { service: 'cache', state: 'running', health: '' },
    ]);
  });

  it("reads 1.x's table with no containers", () => {
    expect(parseComposePs(v1.split('\n').slice(0, 2).join('\n'), 'api')).toEqual([]);
  });

  it("reads podman-compose's podman ps array, the service from its label", () => {
    const out = JSON.stringify([
      {
        Names: ['api_gateway_1'],
        State: 'exited',
        ExitCode: 143,
        Labels: { 'com.docker.compose.service': 'gateway' },
      },
    ]);
    expect(parseComposePs(out)).toEqual([
      { service: 'gateway', state: 'exited', health: '', exitCode: 143 },
    ]);
  });
});

describe('a service status from compose ps', () => {
  it('is running when every replica runs', () => {
    const rows = parseComposePs(
      JSON.stringify([row('gateway', 'running'), row('gateway', 'running', 'healthy')]),
    );
    expect(composeServiceStatus(rows ?? [], 'gateway')).toEqual({
      state: 'running',
      detail: 'running',
    });
  });

  it('is stopped when one replica is not running, naming its state', () => {
    const rows = parseComposePs(
      JSON.stringify([row('gateway', 'running'), row('gateway', 'restarting')]),
    );
    expect(composeServiceStatus(rows ?? [], 'gateway')).toEqual({
      state: 'stopped',
      detail: 'restarting',
    });
  });

  it('names the exit code of a container that ended, so a SIGKILL (137) shows', () => {
    const rows = parseComposePs(JSON.stringify([{ ...row('gateway', 'exited'), ExitCode: 137 }]));
    expect(composeServiceStatus(rows ?? [], 'gateway')).toEqual({
      state: 'stopped',
      detail: 'exited-137',
    });
  });

  it('is unhealthy when a running container fails its healthcheck', () => {
    const rows = parseComposePs(JSON.stringify([row('gateway', 'running', 'unhealthy')]));
    expect(composeServiceStatus(rows ?? [], 'gateway')).toEqual({
      state: 'unhealthy',
      detail: 'unhealthy',
    });
  });

  it('is stopped when the service has no container at all', () => {
    const rows = parseComposePs(JSON.stringify([row('worker', 'running')]));
    expect(composeServiceStatus(rows ?? [], 'gateway')).toEqual({
      state: 'stopped',
      detail: 'no-container',
    });
  });
});
