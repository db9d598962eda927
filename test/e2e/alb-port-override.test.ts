import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from './fleet-harness.js';
import { APP_PORT, GROUP_PORT, rolloutOnPortOverride, targetsOnAppPort } from './port-override.js';

/**
 * An ALB target group on port 8100 whose targets are registered on a port
 * override, 8000, where the app listens (one instance, several services).
 * AWS keys registrations by (Id, Port): DeregisterTargets "If you specified a
 * port override when you registered a target, you must specify both the
 * target ID and the port when you deregister it", and a target named without
 * its port "does not exist", which "returns successfully" — a drain that
 * drains nothing. The lab's endpoint keys them the same way.
 */
const SUBNET = '127.0.120';
let fleet: Fleet;
const withPorts = () => targetsOnAppPort(fleet);

beforeAll(async () => {
  // r1 goes out with the group on the app's port; then the group is as if made on 8100
  fleet = await startFleet({
    hosts: 2,
    subnet: SUBNET,
    workDir: '/tmp/handoff-e2e-120',
    balancer: 'alb',
  });
  fleet.lab.elbv2!.group.setPort(GROUP_PORT);
  await fleet.configure({ drainMethod: 'deregister', targets: withPorts() });
});
afterAll(async () => {
  await fleet?.stop();
});

describe('deploy rollout through an ALB group whose targets sit on a port override', () => {
  it('drains and restores exactly the (Id, 8000) registrations, under load, zero failed', async () => {
    const watched = await rolloutOnPortOverride(fleet, 'r2');
    for (const states of watched)
      expect(states).toEqual(['healthy', 'draining', 'unused', 'initial', 'healthy']);
  });

  it('a target written without its port stops in preflight, exit 3, naming the ports, nothing drained', async () => {
    await fleet.configure({ drainMethod: 'deregister' });
    await fleet.stageEverywhere('r3');
    const deregistered = fleet.lab.elbv2!.calls.get('DeregisterTargets');
    const r = await fleet.deploy(['rollout', '--release', 'r3']);
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(3);
    expect(r.stderr).toContain(
      `web-1 (target ${SUBNET}.1: registered on port ${APP_PORT} (the group's port is ${GROUP_PORT}): write the port in hosts[].target, e.g. ${SUBNET}.1:${APP_PORT})`,
    );
    expect(fleet.lab.elbv2!.calls.get('DeregisterTargets')).toBe(deregistered);
    await fleet.configure({ drainMethod: 'deregister', targets: withPorts() });
  });
});
