import { describe, expect, it } from 'vitest';
import { checkAttributes, checkGroupFields } from '../../../scripts/lab/elbv2/limits.js';
import {
  checkTypeAttributes,
  loadBalancerPath,
  protocolFields,
  resetsAtDelayEnd,
  typeAttributes,
} from '../../../scripts/lab/elbv2/network.js';
import { Registrations } from '../../../scripts/lab/elbv2/registrations.js';
import { targetHealth } from '../../../scripts/lab/elbv2/target-health.js';

/**
 * The lab's ELBv2 endpoint against the Elastic Load Balancing API Reference
 * (2015-12-01): one behaviour per test, the section named in its title.
 */
const GROUP_PORT = 8000;
const APP_PORT = 9000;
const hosts = new Map([['10.0.0.1', 'web-1']]);

function table(): Registrations {
  return new Registrations(
    GROUP_PORT,
    (id, port) => (port === APP_PORT ? hosts.get(id) : undefined),
    (id) => hosts.has(id),
  );
}

const checks = { intervalMs: 5000, healthy: 2, unhealthy: 2 };

describe('RegisterTargets', () => {
  it('keys a registration by (Id, Port): the same address on two ports is two registrations', () => {
    const t = table();
    t.register({ Id: '10.0.0.1', Port: APP_PORT }, 0);
    t.register({ Id: '10.0.0.1', Port: 9001 }, 0);
    expect(t.all().map((r) => [r.id, r.port, r.server])).toEqual([
      ['10.0.0.1', APP_PORT, 'web-1'],
      ['10.0.0.1', 9001, undefined],
    ]);
  });

  it("registers a target named without a port on the group's port", () => {
    const t = table();
    expect(t.register({ Id: '10.0.0.1' }, 0)).toMatchObject({ port: GROUP_PORT });
  });

  it('changes nothing when the (Id, Port) is registered already, its health included', () => {
    const t = table();
    t.register({ Id: '10.0.0.1', Port: APP_PORT }, 0);
    expect(t.register({ Id: '10.0.0.1', Port: APP_PORT }, 50)).toBeUndefined();
    expect(t.all()).toHaveLength(1);
    expect(t.all()[0]?.registeredAt).toBe(0);
  });

  it('refuses an address outside the VPC with InvalidTarget', () => {
    expect(() => table().register({ Id: '192.0.2.9' }, 0)).toThrow(
      expect.objectContaining({ code: 'InvalidTarget', status: 400 }),
    );
  });
});

describe('DeregisterTargets', () => {
  it('leaves a port-override registration alone when named without its port, and succeeds', () => {
    const t = table();
    t.register({ Id: '10.0.0.1', Port: APP_PORT }, 0);
    expect(t.deregister({ Id: '10.0.0.1' }, 10)).toBeUndefined();
    expect(t.all()[0]?.registered).toBe(true);
  });

  it('drains exactly the (Id, Port) it names', () => {
    const t = table();
    t.register({ Id: '10.0.0.1', Port: APP_PORT }, 0);
    t.register({ Id: '10.0.0.1' }, 0);
    expect(t.deregister({ Id: '10.0.0.1', Port: APP_PORT }, 10)).toMatchObject({ port: APP_PORT });
    expect(t.all().map((r) => [r.port, r.registered])).toEqual([
      [APP_PORT, false],
      [GROUP_PORT, true],
    ]);
  });

  it('registered again while draining, is the same registration, registered', () => {
    const t = table();
    const first = t.register({ Id: '10.0.0.1', Port: APP_PORT }, 0);
    t.deregister({ Id: '10.0.0.1', Port: APP_PORT }, 10);
    expect(t.register({ Id: '10.0.0.1', Port: APP_PORT }, 20)).toBe(first);
    expect(first?.registered).toBe(true);
  });
});

describe('TargetHealth (DescribeTargetHealth)', () => {
  const registered = (at: number) => ({
    id: '10.0.0.1',
    port: APP_PORT,
    server: 'web-1',
    registered: true,
    registeredAt: at,
    seenUp: false,
  });

  it('is initial (Elb.RegistrationInProgress) after registering, then healthy once UP', () => {
    const reg = registered(0);
    expect(targetHealth(reg, undefined, checks, 5000, 1000).State).toBe('initial');
    const up = { pxname: 'be', svname: 'web-1', status: 'UP' };
    expect(targetHealth(reg, up, checks, 5000, 2000)).toEqual({ State: 'healthy' });
  });

  it('is initial while HAProxy has the server UP before any check ran (check_status INI), never healthy', () => {
    const reg = registered(0);
    // HAProxy 2.6 right after its start: 'UP 1/3' with check_status INI until the first check
    const unchecked = { pxname: 'be', svname: 'web-1', status: 'UP 1/3', check_status: 'INI' };
    expect(targetHealth(reg, unchecked, checks, 5000, 1000).State).toBe('initial');
    expect(reg.seenUp).toBe(false);
    // the first check failed: initial for as long as AWS would keep it there, then unhealthy
    const failed = { ...unchecked, status: 'DOWN', check_status: 'L4CON' };
    expect(targetHealth(reg, failed, checks, 5000, 2000).State).toBe('initial');
    expect(targetHealth(reg, failed, checks, 5000, 20_001).State).toBe('unhealthy');
    // a check in progress ('* L7OK') has run before: healthy
    const passing = { ...unchecked, status: 'UP', check_status: '* L7OK' };
    expect(targetHealth(reg, passing, checks, 5000, 3000)).toEqual({ State: 'healthy' });
  });

  it('is unhealthy (Target.FailedHealthChecks) where nothing listens, once initial is over', () => {
    const reg = { ...registered(0), server: undefined };
    expect(targetHealth(reg, undefined, checks, 5000, 20_001)).toMatchObject({
      State: 'unhealthy',
      Reason: 'Target.FailedHealthChecks',
    });
  });

  it('is draining (Target.DeregistrationInProgress) for the deregistration delay, then unused', () => {
    const reg = { ...registered(0), registered: false, deregisteredAt: 10_000 };
    const busy = { pxname: 'be', svname: 'web-1', status: 'DRAIN', scur: '3' };
    expect(targetHealth(reg, busy, checks, 5000, 12_000)).toMatchObject({
      State: 'draining',
      Reason: 'Target.DeregistrationInProgress',
    });
    expect(targetHealth(reg, busy, checks, 5000, 15_000)).toMatchObject({
      State: 'unused',
      Reason: 'Target.NotRegistered',
    });
  });
});

describe('ModifyTargetGroup and ModifyTargetGroupAttributes: ValidationError out of range', () => {
  it.each([
    ['HealthCheckIntervalSeconds', '4'],
    ['HealthCheckIntervalSeconds', '301'],
    ['HealthCheckTimeoutSeconds', '1'],
    ['HealthyThresholdCount', '11'],
    ['UnhealthyThresholdCount', '1'],
  ])('refuses %s = %s', (field, value) => {
    expect(() => checkGroupFields(new Map([[field, value]]))).toThrow(
      expect.objectContaining({ code: 'ValidationError', status: 400 }),
    );
  });

  it('takes the smallest values AWS documents', () => {
    const least = new Map([
      ['HealthCheckIntervalSeconds', '5'],
      ['HealthCheckTimeoutSeconds', '2'],
      ['HealthyThresholdCount', '2'],
      ['UnhealthyThresholdCount', '2'],
    ]);
    expect(() => checkGroupFields(least)).not.toThrow();
  });

  it.each([
    ['slow_start.duration_seconds', '3'],
    ['slow_start.duration_seconds', '901'],
    ['deregistration_delay.timeout_seconds', '3601'],
  ])('refuses the attribute %s = %s', (Key, Value) => {
    expect(() => checkAttributes([{ Key, Value }])).toThrow(
      expect.objectContaining({ code: 'ValidationError' }),
    );
  });

  it('takes slow start 0 (off) and 30, and a deregistration delay of 0', () => {
    const ok = [
      { Key: 'slow_start.duration_seconds', Value: '0' },
      { Key: 'slow_start.duration_seconds', Value: '30' },
      { Key: 'deregistration_delay.timeout_seconds', Value: '0' },
    ];
    expect(() => checkAttributes(ok)).not.toThrow();
  });
});

describe("a Network Load Balancer's target group", () => {
  it('is TCP with a TCP health check and no path (CreateTargetGroup, Protocol and HealthCheckProtocol)', () => {
    expect(protocolFields('network')).toEqual({ Protocol: 'TCP', HealthCheckProtocol: 'TCP' });
    expect(protocolFields('application')).toMatchObject({
      Protocol: 'HTTP',
      HealthCheckPath: '/health',
    });
  });

  it('sits behind a load balancer of Type network (LoadBalancer, Type; the ARN names net/)', () => {
    expect(loadBalancerPath('network')).toBe('net');
    expect(loadBalancerPath('application')).toBe('app');
  });

  it('holds connection termination, off by default, and no slow start (TargetGroupAttribute)', () => {
    expect(new Map(typeAttributes('network'))).toEqual(
      new Map([['deregistration_delay.connection_termination.enabled', 'false']]),
    );
    expect(new Map(typeAttributes('application')).has('slow_start.duration_seconds')).toBe(true);
  });

  it('refuses slow start with InvalidConfigurationRequest, and connection termination on an ALB group', () => {
    expect(() =>
      checkTypeAttributes('network', [{ Key: 'slow_start.duration_seconds', Value: '30' }]),
    ).toThrow(expect.objectContaining({ code: 'InvalidConfigurationRequest', status: 400 }));
    expect(() =>
      checkTypeAttributes('application', [
        { Key: 'deregistration_delay.connection_termination.enabled', Value: 'true' },
      ]),
    ).toThrow(expect.objectContaining({ code: 'InvalidConfigurationRequest', status: 400 }));
  });

  it('takes connection termination true or false only (ValidationError otherwise)', () => {
    const set = (Value: string) => () =>
      checkTypeAttributes('network', [
        { Key: 'deregistration_delay.connection_termination.enabled', Value },
      ]);
    expect(set('true')).not.toThrow();
    expect(set('false')).not.toThrow();
    expect(set('yes')).toThrow(expect.objectContaining({ code: 'ValidationError', status: 400 }));
  });

  it('resets connections at the end of the delay only with the attribute on', () => {
    const key = 'deregistration_delay.connection_termination.enabled';
    expect(resetsAtDelayEnd(new Map([[key, 'true']]))).toBe(true);
    expect(resetsAtDelayEnd(new Map([[key, 'false']]))).toBe(false);
    expect(resetsAtDelayEnd(new Map())).toBe(false);
  });
});
