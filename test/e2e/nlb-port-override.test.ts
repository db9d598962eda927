import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from './fleet-harness.js';
import { GROUP_PORT, rolloutOnPortOverride, targetsOnAppPort } from './port-override.js';

/**
 * The same as alb-port-override, through a Network Load Balancer's group
 * (Protocol TCP, HealthCheckProtocol TCP) on port 8100 whose targets are
 * registered on a port override, 8000. Connection termination is on
 * (TargetGroupAttribute: the NLB "terminates connections at the end of the
 * deregistration timeout"), so the deregistration delay is raised to hold
 * the overlap and the whole stop (invariant connection-termination): values
 * AWS accepts for an NLB (0–3600 s, true/false).
 */
const SUBNET = '127.0.180';
let fleet: Fleet;
const withPorts = () => targetsOnAppPort(fleet);

beforeAll(async () => {
  fleet = await startFleet({
    hosts: 2,
    subnet: SUBNET,
    workDir: '/tmp/handoff-e2e-180',
    balancer: 'alb',
    loadBalancerType: 'network',
    // behind a TCP check a 503 drains nothing (invariant check-protocol): the group deregisters
    config: { drainMethod: 'deregister' },
  });
  const group = fleet.lab.elbv2!.group;
  group.setPort(GROUP_PORT);
  group.modifyAttributes([
    { Key: 'deregistration_delay.timeout_seconds', Value: '15' },
    { Key: 'deregistration_delay.connection_termination.enabled', Value: 'true' },
  ]);
  await fleet.configure({ drainMethod: 'deregister', targets: withPorts() });
});
afterAll(async () => {
  await fleet?.stop();
});

describe('deploy rollout through an NLB group whose targets sit on a port override', () => {
  it('deploy check --live reads the NLB group: connection termination fits the delay', async () => {
    const r = await fleet.deploy(['check', '--live']);
    expect(r.code, `${r.stderr}\n${r.stdout}`).toBe(0);
    expect(r.stdout).toContain(
      'connection-termination  connection termination on: overlap 2s + stop_timeout 10s = 12s ≤ deregistration delay 15s: ok',
    );
  });

  it('drains and restores exactly the (Id, 8000) registrations, under load, zero failed', async () => {
    const watched = await rolloutOnPortOverride(fleet, 'r2');
    expect(watched).toHaveLength(fleet.lab.hosts.length);
    // each drained (draining), back through initial; re-registered within the 15 s delay or after it
    for (const states of watched) {
      expect(states.slice(0, 2)).toEqual(['healthy', 'draining']);
      expect(states.slice(-2)).toEqual(['initial', 'healthy']);
    }
  });
});
