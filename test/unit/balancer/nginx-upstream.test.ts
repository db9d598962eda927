import { describe, expect, it } from 'vitest';
import { nginxTime, readMainConfig } from '../../../src/balancer/nginx/main-config.js';
import { markDown, readUpstream } from '../../../src/balancer/nginx/upstream.js';
import { parseWorkers } from '../../../src/balancer/nginx/workers.js';

const file = [
  '# owned by handoff',
  'upstream other {',
  '    server 10.0.1.11:8080;',
  '}',
  'upstream api {',
  '    server 10.0.1.11:8080 max_fails=3;  # web-1',
  '    server 10.0.1.12:8080 down;',
  '    keepalive 16;',
  '    keepalive_timeout 30s;',
  '}',
  '',
].join('\n');

describe('the upstream block', () => {
  it('reads its servers, which are down, and its keep-alive', () => {
    expect(readUpstream(file, 'api')).toEqual({
      ok: true,
      servers: [
        { address: '10.0.1.11:8080', down: false, line: 6 },
        { address: '10.0.1.12:8080', down: true, line: 7 },
      ],
      keepalive: true,
      keepaliveTimeout: '30s',
    });
  });

  it('marks one server down in the named upstream and leaves every other byte', () => {
    const r = markDown(file, 'api', '10.0.1.11:8080', true);
    expect(r).toMatchObject({ ok: true, changed: true });
    const text = r.ok ? r.text : '';
    expect(text.split('\n')[5]).toBe('    server 10.0.1.11:8080 max_fails=3 down;  # web-1');
    expect(text.split('\n')[2]).toBe('    server 10.0.1.11:8080;');
    expect(text.replace(' down;  # web-1', ';  # web-1')).toBe(file);
  });

  it('takes down away again, and a second undrain changes nothing', () => {
    const r = markDown(file, 'api', '10.0.1.12:8080', false);
    const text = r.ok ? r.text : '';
    expect(text.split('\n')[6]).toBe('    server 10.0.1.12:8080;');
    expect(markDown(text, 'api', '10.0.1.12:8080', false)).toEqual({
      ok: true,
      text,
      changed: false,
    });
  });

  it('says what is missing: the upstream, or the server in it', () => {
    expect(readUpstream(file, 'nope')).toEqual({ ok: false, reason: "no 'upstream nope {' line" });
    expect(markDown(file, 'api', '10.0.1.13:8080', true)).toEqual({
      ok: false,
      reason: 'upstream api has no server 10.0.1.13:8080',
    });
  });
});

describe("nginx's main config and workers", () => {
  it('reads the pid file and worker_shutdown_timeout at the top level only', () => {
    const text = 'pid /tmp/n.pid;\nworker_shutdown_timeout 1m30s;\nhttp {\n  pid /nope;\n}\n';
    expect(readMainConfig(text)).toEqual({ pidFile: '/tmp/n.pid', workerShutdownTimeout: 90_000 });
    expect(readMainConfig('events {}\n')).toEqual({ pidFile: '/run/nginx.pid' });
  });

  it("reads nginx's time syntax, a bare number as seconds", () => {
    expect([nginxTime('500ms'), nginxTime('10'), nginxTime('1h'), nginxTime('10x')]).toEqual([
      500,
      10_000,
      3_600_000,
      undefined,
    ]);
  });

  it('tells a worker that is shutting down from one that serves', () => {
    const ps =
      '  101 nginx: worker process\n  102 nginx: worker process is shutting down\n  103 nginx: cache manager process\n';
    expect(parseWorkers(ps)).toEqual([
      { pid: 101, shuttingDown: false },
      { pid: 102, shuttingDown: true },
    ]);
  });
});
