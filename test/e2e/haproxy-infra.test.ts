import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundlePath } from '../../scripts/build.js';
import { freePort, startHaproxy, type RunningHaproxy } from '../support/haproxy.js';

/** deploy.yml for a fleet behind the test haproxy, with the thresholds the operator wants. */
function deployYml(haproxy: RunningHaproxy, fall: number, rise: number): string {
  return `service: api
ssh:
  user: deploy
  known_hosts: /dev/null
hosts:
  - { name: web-1, address: 127.0.0.1, target: web-1 }
  - { name: web-2, address: 127.0.0.2, target: web-2 }
balancer:
  kind: haproxy
  socket: ${haproxy.socket}
  backend: ${haproxy.backend}
  interval: 200ms
  timeout: 150ms
  unhealthy_threshold: ${fall}
  healthy_threshold: ${rise}
drain: { method: health, overlap: 1s, max_request: 1s, stop_timeout: 5s }
host: { root: /tmp/x/root, lock: /tmp/x/lock, state: /tmp/x/state, agent: /tmp/x/agent }
runtime: { kind: command }
services:
  - name: app
    check: { http: "http://127.0.0.1:8080/health", timeout: 2s }
    start: "true"
    stop: "true"
    status: "true"
`;
}

describe('deploy infra apply against a real haproxy', () => {
  let haproxy: RunningHaproxy;
  let dir: string;
  const run = async (fall: number, rise: number, ...flags: string[]) => {
    const file = path.join(dir, `deploy-${fall}-${rise}.yml`);
    await writeFile(file, deployYml(haproxy, fall, rise));
    return execa('node', [bundlePath, 'infra', 'apply', '-c', file, ...flags], { reject: false });
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'handoff-infra-'));
    // nothing listens on the servers: only the check settings matter here
    const ports = await Promise.all([freePort(), freePort()]);
    haproxy = await startHaproxy({
      servers: ports.map((port, i) => ({ name: `web-${i + 1}`, address: `127.0.0.1:${port}` })),
      inter: 200,
      fall: 3,
      rise: 2,
      timeoutCheck: 150,
    });
  });
  afterAll(async () => {
    await haproxy?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('prints what differs and the lines to write under --dry-run, and exits 0', async () => {
    const result = await run(2, 2, '--dry-run');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe(
      [
        'haproxy: would change:',
        '  unhealthyThreshold: 3 -> 2  (not changed by handoff)',
        'haproxy backend lines:',
        'default-server inter 200ms fall 2 rise 2',
        'timeout check 150ms',
      ].join('\n'),
    );
  });

  it('exits 1 saying what to put in the haproxy config when it would have to change something', async () => {
    const result = await run(2, 2);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `deploy: haproxy cannot change check settings at runtime: put 'default-server inter 200ms fall 2 rise 2; timeout check 150ms' in backend ${haproxy.backend} and reload haproxy`,
    );
  });

  it('says the settings already match when they do', async () => {
    const result = await run(3, 2);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('haproxy: the health-check settings already match');
  });

  it('ends its JSON output with a result that lists the changes', async () => {
    const result = await run(2, 2, '--dry-run', '--json');
    const last = JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}') as Record<
      string,
      unknown
    >;
    expect(last).toMatchObject({
      event: 'result',
      ok: true,
      kind: 'haproxy',
      dry_run: true,
      applied: false,
      changes: [{ setting: 'unhealthy_threshold', current: 3, desired: 2, action: 'manual' }],
    });
  });
});
