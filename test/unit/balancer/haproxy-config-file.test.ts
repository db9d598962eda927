import { describe, expect, it } from 'vitest';
import { parseTime, readBackendChecks } from '../../../src/balancer/haproxy/config-file.js';

function checks(text: string, backend = 'be_app') {
  const result = readBackendChecks(text, backend);
  if (!result.ok) throw new Error(result.reason);
  return { ...result.checks, servers: Object.fromEntries(result.checks.servers) };
}

describe('the check settings in an haproxy config file', () => {
  it('takes inter, fall and rise from default-server and timeout check from defaults', () => {
    const text = `
global
  stats socket /run/haproxy/admin.sock level admin
defaults
  timeout check 2s   # the read part of a check
backend be_app
  default-server inter 5s fall 2 rise 3
  server web-1 10.0.0.1:80 check
`;
    expect(checks(text)).toEqual({
      timeoutCheck: 2000,
      servers: { 'web-1': { check: true, inter: 5000, fall: 2, rise: 3 } },
    });
  });

  it('names the line that sets on-marked-down shutdown-sessions, on a default-server or a server', () => {
    const text = `backend be_app
  default-server inter 1s on-marked-down shutdown-sessions
  server web-1 10.0.0.1:80 check
backend be_other
  server x 10.0.0.9:80 check
`;
    expect(checks(text).servers['web-1']).toEqual({
      check: true,
      inter: 1000,
      fall: 3,
      rise: 2,
      shutdownSessions: 'line 2: default-server inter 1s on-marked-down shutdown-sessions',
    });
    const own =
      'backend be_app\n  server web-1 10.0.0.1:80 check on-marked-down shutdown-sessions\n';
    expect(checks(own).servers['web-1']?.shutdownSessions).toBe(
      'line 2: server web-1 10.0.0.1:80 check on-marked-down shutdown-sessions',
    );
    // another backend's servers are not this one's
    expect(checks(text, 'be_other').servers['x']?.shutdownSessions).toBeUndefined();
  });

  it('names the line of http-check disable-on-404, in the backend or the defaults it inherits', () => {
    const own = 'backend be_app\n  option httpchk GET /health\n  http-check disable-on-404\n';
    expect(checks(own).disableOn404).toBe('line 3: http-check disable-on-404');
    const inherited =
      'defaults\n  http-check disable-on-404\nbackend be_app\n  server a 1.2.3.4:80 check\n';
    expect(checks(inherited).disableOn404).toBe('line 2: http-check disable-on-404');
    const other = 'backend be_other\n  http-check disable-on-404\nbackend be_app\n';
    expect(checks(other).disableOn404).toBeUndefined();
  });

  it('names persistence without option redispatch (or with retries 0), and not with it', () => {
    const cookie =
      'backend be_app\n  cookie SRV insert indirect nocache\n  server a 1.2.3.4:80 check\n';
    expect(checks(cookie).persistWithoutRedispatch).toBe(
      'line 2: cookie SRV insert indirect nocache',
    );
    const redispatched = `defaults\n  option redispatch\n${cookie}`;
    expect(checks(redispatched).persistWithoutRedispatch).toBeUndefined();
    const noRetries = `defaults\n  option redispatch\n  retries 0\n${cookie}`;
    expect(checks(noRetries).persistWithoutRedispatch).toBe(
      'line 5: cookie SRV insert indirect nocache',
    );
    const turnedOff = `defaults\n  option redispatch\nbackend be_app\n  no option redispatch\n  stick on src\n`;
    expect(checks(turnedOff).persistWithoutRedispatch).toBe('line 5: stick on src');
    // no persistence: nothing keeps a client on a stopped server
    expect(checks('backend be_app\n  retries 0\n').persistWithoutRedispatch).toBeUndefined();
  });

  it("uses haproxy's own defaults for what is not written", () => {
    expect(checks('backend be_app\n  server web-1 10.0.0.1:80 check\n').servers['web-1']).toEqual({
      check: true,
      inter: 2000,
      fall: 3,
      rise: 2,
    });
  });

  it('lets a server line override default-server, and default-server apply only after it', () => {
    const text = `
backend be_app
  server early 10.0.0.1:80 check
  default-server inter 1s fall 4
  server web-1 10.0.0.2:80 check inter 3s slowstart 10s
  server web-2 10.0.0.3:80
`;
    expect(checks(text).servers).toEqual({
      early: { check: true, inter: 2000, fall: 3, rise: 2 },
      'web-1': { check: true, inter: 3000, fall: 4, rise: 2, slowstart: 10_000 },
      'web-2': { check: false, inter: 1000, fall: 4, rise: 2 },
    });
  });

  it('inherits from the last defaults section before the backend, not a later one', () => {
    const text = `
defaults
  timeout check 1s
  default-server inter 1s
defaults
  timeout check 3s
  default-server inter 3s
backend be_app
  server web-1 10.0.0.1:80 check
defaults
  timeout check 9s
`;
    expect(checks(text)).toMatchObject({
      timeoutCheck: 3000,
      servers: { 'web-1': { inter: 3000 } },
    });
  });

  it("inherits from the defaults section named by 'from'", () => {
    const text = `
defaults slow
  timeout check 4s
defaults
  timeout check 1s
backend be_app from slow
  server web-1 10.0.0.1:80 check
`;
    expect(checks(text).timeoutCheck).toBe(4000);
  });

  it('reads a listen section like a backend and ignores other proxies', () => {
    const text = `
backend be_other
  default-server inter 9s
  timeout check 9s
listen be_app
  server web-1 10.0.0.1:80 check
`;
    expect(checks(text)).toEqual({
      servers: { 'web-1': { check: true, inter: 2000, fall: 3, rise: 2 } },
    });
  });

  it('says when the backend is not in the file', () => {
    expect(readBackendChecks('backend be_other\n', 'be_app')).toEqual({
      ok: false,
      reason: 'no backend be_app in it',
    });
  });

  it('says which line it cannot read', () => {
    expect(
      readBackendChecks('backend be_app\n  server web-1 10.0.0.1:80 check fall many\n', 'be_app'),
    ).toEqual({
      ok: false,
      reason: 'bad fall many in: server web-1 10.0.0.1:80 check fall many',
    });
  });
});

describe('haproxy time values', () => {
  it.each([
    ['1500', 1500],
    ['500ms', 500],
    ['2s', 2000],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1500us', 2],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseTime(text)).toBe(ms);
  });

  it('refuses what is not a time', () => {
    expect(parseTime('2 s')).toBeUndefined();
    expect(parseTime('-1s')).toBeUndefined();
    expect(parseTime(undefined)).toBeUndefined();
  });
});
