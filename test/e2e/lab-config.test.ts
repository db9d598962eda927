import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { haproxyConfig, labConfig, labLayout } from '../../scripts/lab/index.js';
import { haproxyInstances } from '../../scripts/lab/haproxy.js';
import { hostsFile } from '../../scripts/lab/sshd.js';

describe('the lab configs', () => {
  const layout = labLayout({ hosts: 2, workDir: '/tmp/lab-x', timings: { interval: 500 } });

  it('addresses hosts on 127.0.10.x with the HAProxy server name as target', () => {
    const doc = parse(labConfig(layout)) as Record<string, unknown>;
    expect(doc.hosts).toEqual([
      { name: 'web-1', address: '127.0.10.1', target: 'web-1' },
      { name: 'web-2', address: '127.0.10.2', target: 'web-2' },
    ]);
    expect(doc.ssh).toEqual({
      user: 'root',
      port: 22,
      identity_file: '/tmp/lab-x/client/id_ed25519',
      known_hosts: '/tmp/lab-x/client/known_hosts',
      connect_timeout: '5s',
    });
  });

  it('gives the balancer the same health-check numbers HAProxy runs with', () => {
    const doc = parse(labConfig(layout)) as { balancer: Record<string, unknown> };
    expect(doc.balancer).toEqual({
      kind: 'haproxy',
      socket: '/tmp/lab-x/haproxy/admin.sock',
      backend: 'be_lab',
      interval: '500ms',
      timeout: '500ms',
      unhealthy_threshold: 2,
      healthy_threshold: 2,
    });
    expect(haproxyConfig(layout)).toContain('default-server inter 500ms fall 2 rise 2');
  });

  it('runs the app and the worker from the release dir with the command runtime', () => {
    const doc = parse(labConfig(layout)) as {
      runtime: unknown;
      services: { name: string; start: string; check: unknown }[];
    };
    expect(doc.runtime).toEqual({ kind: 'command' });
    expect(doc.services.map((s) => s.name)).toEqual(['app', 'worker']);
    expect(doc.services[0]?.start).toBe(
      'STATE_DIR=/run/handoff/lab BIND=lab-self PORT=8000 STOP_TIMEOUT_MS=10000 node /srv/handoff/lab/releases/"$RELEASE"/ctl.mjs start app',
    );
    expect(doc.services[0]?.check).toEqual({ http: 'http://lab-self:8000/health', timeout: '1s' });
    expect(doc.services[1]?.check).toEqual({
      heartbeat: { dir: 'marks', max_age: '5s', expected: 2 },
    });
  });

  it('makes HAProxy fail a request to a dying server instead of retrying it elsewhere', () => {
    const cfg = haproxyConfig(layout);
    expect(cfg).toContain('retries 0');
    expect(cfg).not.toContain('redispatch');
    expect(cfg).toContain('option httpchk GET /health');
    expect(cfg).toContain('http-check expect status 200');
    expect(cfg).toContain('timeout http-keep-alive 10s');
    expect(cfg).toContain('stats socket /tmp/lab-x/haproxy/admin.sock mode 600 level admin');
    expect(cfg).toContain('bind 127.0.10.100:8080');
    expect(cfg).toContain('server web-2 127.0.10.2:8000 check');
  });

  it("puts the pair's lb-b on a host of its own, which deploy.yml names over SSH with its paths there", () => {
    const pair = labLayout({ hosts: 2, workDir: '/tmp/lab-x', pair: true });
    expect(pair.pair?.host).toMatchObject({ name: 'lb-b', address: '127.0.10.101', sshPort: 22 });
    const [, lbB] = haproxyInstances(pair);
    expect(haproxyConfig(pair, lbB)).toContain(
      'stats socket /run/haproxy/admin.sock mode 600 level admin',
    );
    expect(haproxyConfig(pair, lbB)).toContain('bind 127.0.10.101:8080');
    expect(hostsFile(pair, pair.pair!.host)).toContain('127.0.10.101 lb-b\n');
    type Doc = { balancers: Record<string, unknown>[] };
    const overSsh = parse(labConfig(pair, { peerOverSsh: true })) as Doc;
    expect(overSsh.balancers[1]).toEqual({
      name: 'lb-b',
      kind: 'haproxy',
      ssh: '127.0.10.101',
      socket: '/run/haproxy/admin.sock',
      backend: 'be_lab',
      config: '/etc/haproxy/haproxy.cfg',
    });
    // lb-a runs on this machine: no ssh, its files under the work dir
    expect(overSsh.balancers[0]).not.toHaveProperty('ssh');
    const local = parse(labConfig(pair)) as Doc;
    expect(local.balancers[1]).toMatchObject({
      socket: '/tmp/lab-x/hosts/lb-b/run/haproxy/admin.sock',
      config: '/tmp/lab-x/hosts/lb-b/etc/haproxy/haproxy.cfg',
    });
  });
});
