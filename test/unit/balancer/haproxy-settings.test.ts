import { describe, expect, it } from 'vitest';
import type { BackendChecks, ServerCheck } from '../../../src/balancer/haproxy/config-file.js';
import { combineSettings } from '../../../src/balancer/haproxy/settings.js';
import type { StatRow } from '../../../src/balancer/haproxy/stat-csv.js';

const live = (server: string, rise: number, fall: number): StatRow => ({
  backend: 'be_app',
  server,
  status: 'UP',
  checkStatus: 'L7OK',
  checkCode: '200',
  checkDesc: '',
  rise,
  fall,
});
const server = (over: Partial<ServerCheck> = {}): ServerCheck => ({
  check: true,
  inter: 5000,
  fall: 2,
  rise: 3,
  ...over,
});
const file = (servers: Record<string, ServerCheck>, timeoutCheck?: number) => ({
  kind: 'file' as const,
  path: '/etc/haproxy/haproxy.cfg',
  checks: {
    servers: new Map(Object.entries(servers)),
    ...(timeoutCheck !== undefined ? { timeoutCheck } : {}),
  } satisfies BackendChecks,
});

describe('the settings of an haproxy backend', () => {
  it('take inter and timeout check from the file when it agrees with the running haproxy', () => {
    expect(
      combineSettings('be_app', [live('web-1', 3, 2)], file({ 'web-1': server() }, 2000)),
    ).toEqual({
      ok: true,
      settings: {
        interval: 5000,
        timeout: 2000,
        unhealthyThreshold: 2,
        healthyThreshold: 3,
        disableOn404: false,
      },
    });
  });

  it('carry the file and line of persistence without redispatch', () => {
    const checks = {
      servers: new Map([['web-1', server()]]),
      persistWithoutRedispatch: 'line 4: cookie SRV insert',
    };
    const result = combineSettings('be_app', [live('web-1', 3, 2)], {
      kind: 'file',
      path: '/etc/haproxy/haproxy.cfg',
      checks,
    });
    expect(result.ok && result.settings.persistWithoutRedispatch).toBe(
      '/etc/haproxy/haproxy.cfg line 4: cookie SRV insert',
    );
  });

  it("carry the file and line of a checked server's on-marked-down shutdown-sessions", () => {
    const at = 'line 9: server web-2 10.0.0.3:80 check on-marked-down shutdown-sessions';
    const result = combineSettings(
      'be_app',
      [],
      file({ 'web-1': server(), 'web-2': server({ shutdownSessions: at }) }),
    );
    expect(result).toMatchObject({
      ok: true,
      settings: { shutdownSessionsOnDown: `/etc/haproxy/haproxy.cfg ${at}` },
    });
    const none = combineSettings('be_app', [], file({ 'web-1': server() }));
    expect(none.ok && none.settings.shutdownSessionsOnDown).toBeUndefined();
  });

  it('use inter as the timeout when the file sets no timeout check', () => {
    const result = combineSettings('be_app', [], file({ 'web-1': server() }));
    expect(result).toMatchObject({ ok: true, settings: { timeout: 5000 } });
  });

  it('take the slowest server when servers differ', () => {
    const servers = {
      'web-1': server({ inter: 1000, fall: 5, slowstart: 3000 }),
      'web-2': server({ inter: 4000, rise: 6 }),
      'web-3': server({ check: false, inter: 60_000 }),
    };
    expect(combineSettings('be_app', [], file(servers, 500))).toEqual({
      ok: true,
      settings: {
        interval: 4000,
        timeout: 500,
        unhealthyThreshold: 5,
        healthyThreshold: 6,
        slowStart: 3000,
        disableOn404: false,
      },
    });
  });

  it('refuse a file that says another fall than the running haproxy (not reloaded)', () => {
    expect(combineSettings('be_app', [live('web-1', 3, 4)], file({ 'web-1': server() }))).toEqual({
      ok: false,
      reason:
        '/etc/haproxy/haproxy.cfg says fall 2 for be_app/web-1 but the running haproxy uses 4',
    });
  });

  it('refuse a file that lacks a server the running haproxy has', () => {
    expect(
      combineSettings('be_app', [live('web-2', 3, 2)], file({ 'web-1': server() })),
    ).toMatchObject({
      ok: false,
      reason: '/etc/haproxy/haproxy.cfg has no server web-2 in be_app, but the running haproxy has',
    });
  });

  it('refuse a backend where no server is checked', () => {
    expect(
      combineSettings('be_app', [], file({ 'web-1': server({ check: false }) })),
    ).toMatchObject({
      ok: false,
    });
  });

  it('without a file, take the running rise and fall and the rest from deploy.yml', () => {
    const healthCheck = {
      interval: 5000,
      timeout: 2000,
      unhealthyThreshold: 2,
      healthyThreshold: 2,
      slowStart: 0,
    };
    expect(
      combineSettings('be_app', [live('web-1', 4, 3)], { kind: 'deploy.yml', healthCheck }),
    ).toEqual({
      ok: true,
      settings: {
        interval: 5000,
        timeout: 2000,
        unhealthyThreshold: 3,
        healthyThreshold: 4,
        slowStart: 0,
      },
    });
  });
});
