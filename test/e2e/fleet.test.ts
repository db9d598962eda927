import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from './fleet-harness.js';

let fleet: Fleet;
beforeAll(async () => {
  fleet = await startFleet({ hosts: 3, subnet: '127.0.11', workDir: '/tmp/handoff-e2e-fleet' });
});
afterAll(async () => {
  await fleet?.stop();
});

describe('the fleet over SSH', () => {
  it('deploy verify is green on every host after setup and a first rollout', async () => {
    const r = await fleet.deploy(['verify']);
    expect(r.code, r.stderr).toBe(0);
    for (const host of ['web-1', 'web-2', 'web-3'])
      expect(r.stdout).toMatch(new RegExp(`${host}\\s+app\\s+✓`));
  });

  it('running setup twice changes nothing the second time', async () => {
    const r = await fleet.deploy(['setup']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/unchanged/g)).toHaveLength(3);
  });

  it('deploy status shows the release, the lock and the balancer per host', async () => {
    const r = await fleet.deploy(['status']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('web-2: release r1');
    expect(r.stdout).toContain('unlocked, not drained, balancer healthy (in rotation)');
  });

  it('names the host and service whose service died, exit 1', async () => {
    await fleet.lab.inHost('web-2', ['sh', '-c', 'kill -9 $(cat /run/handoff/lab/app.pid)']);
    try {
      const r = await fleet.deploy(['verify']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('web-2/app');
      expect(r.stdout).toMatch(/web-2\s+app\s+✗/);
    } finally {
      await fleet.lab.inHost('web-2', [
        'sh',
        '-c',
        'cd /srv/handoff/lab/current && RELEASE=r1 STATE_DIR=/run/handoff/lab BIND=lab-self PORT=8000 node ctl.mjs start app',
      ]);
    }
  });
});
