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

  it('gives up on output that is not JSON', () => {
    expect(parseComposePs('NAME   IMAGE   STATUS')).toBeUndefined();
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
