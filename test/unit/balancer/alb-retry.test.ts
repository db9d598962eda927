import {
  DescribeTargetGroupsCommand,
  DescribeTargetHealthCommand,
  ElasticLoadBalancingV2Client,
  ElasticLoadBalancingV2ServiceException,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAlbBalancer } from '../../../src/balancer/alb/adapter.js';
import { withRetry } from '../../../src/balancer/alb/retry.js';
import type { AlbBalancerConfig } from '../../../src/balancer/alb/config/entry.js';
import { BlockedError } from '../../../src/errors.js';
import { MemoryLog } from '../../../src/log.js';
import { FakeClock } from '../../support/fake-clock.js';

const elb = mockClient(ElasticLoadBalancingV2Client);
const arn = 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/abc';
const config: AlbBalancerConfig = { kind: 'alb', targetGroupArn: arn };

afterEach(() => {
  elb.reset();
});

/** the group's port, which states() reads once beside the target health */
beforeEach(() => {
  elb
    .on(DescribeTargetGroupsCommand)
    .resolves({ TargetGroups: [{ TargetGroupArn: arn, Port: 80 }] });
});

function awsError(name: string, fault: 'client' | 'server', status: number, attempts = 3): Error {
  return new ElasticLoadBalancingV2ServiceException({
    name,
    message: name,
    $fault: fault,
    $metadata: { httpStatusCode: status, attempts },
  });
}
const throttled = () => awsError('Throttling', 'client', 400);
const unavailable = () => awsError('ServiceUnavailable', 'server', 503);
const healthy = {
  TargetHealthDescriptions: [
    { Target: { Id: 'i-1', Port: 80 }, TargetHealth: { State: 'healthy' as const } },
  ],
};

describe('withRetry, the bound on top of the SDK', () => {
  it('pauses 1 s, 2 s, 4 s between calls the SDK gave up on, and reports the episode', async () => {
    const clock = new FakeClock();
    const errors = [throttled(), throttled(), unavailable()];
    const episodes: unknown[] = [];
    const value = await withRetry(
      () => {
        const e = errors.shift();
        return e ? Promise.reject(e) : Promise.resolve('ok');
      },
      clock,
      { within: 60_000, firstPause: 1000, maxPause: 10_000 },
      (e) => episodes.push(e),
    );
    expect(value).toBe('ok');
    expect(clock.sleeps).toEqual([1000, 2000, 4000]);
    // three calls of three SDK attempts each, then the one that answered
    expect(episodes).toEqual([{ attempts: 10, elapsed: 7000, cause: 'throttled' }]);
  });

  it('counts the SDK attempts of the call that answered too', async () => {
    const clock = new FakeClock();
    // 6 throttled (two calls of 3), then a call whose SDK got two 5xx before its answer
    const errors = [throttled(), throttled()];
    const episodes: unknown[] = [];
    await withRetry(
      () => {
        const e = errors.shift();
        return e ? Promise.reject(e) : Promise.resolve({ $metadata: { attempts: 3 } });
      },
      clock,
      { within: 60_000, firstPause: 1000, maxPause: 10_000 },
      (e) => episodes.push(e),
    );
    expect(episodes).toEqual([{ attempts: 9, elapsed: 3000, cause: 'throttled' }]);
  });

  it('does not retry what is an answer (access denied)', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const denied = awsError('AccessDenied', 'client', 403, 1);
    await expect(
      withRetry(
        () => {
          calls += 1;
          return Promise.reject(denied);
        },
        clock,
        { within: 60_000, firstPause: 1000, maxPause: 10_000 },
        () => undefined,
      ),
    ).rejects.toBe(denied);
    expect(calls).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });
});

describe('the ALB balancer when AWS throttles', () => {
  it('rides out throttling and 5xx, and says so once per run', async () => {
    const clock = new FakeClock();
    const log = new MemoryLog();
    elb
      .on(DescribeTargetHealthCommand)
      .rejectsOnce(throttled())
      .rejectsOnce(throttled())
      .rejectsOnce(unavailable())
      .resolvesOnce(healthy)
      .rejectsOnce(throttled())
      .resolves(healthy);
    const alb = await createAlbBalancer(config, { clock, log });
    expect((await alb.states(['i-1'])).get('i-1')?.inRotation).toBe(true);
    expect((await alb.states(['i-1'])).get('i-1')?.inRotation).toBe(true);
    expect(log.events.map((e) => [e.level, e.message])).toEqual([
      [
        'warn',
        "the balancer's API throttled DescribeTargetHealth for 7.0 s (10 attempts); retried with backoff and went on",
      ],
      [
        'debug',
        "the balancer's API throttled DescribeTargetHealth for 1.0 s (4 attempts); retried with backoff and went on",
      ],
    ]);
  });

  it('gives up after its bound with one line saying for how long, exit 3', async () => {
    const clock = new FakeClock();
    elb.on(DescribeTargetHealthCommand).rejects(throttled());
    const alb = await createAlbBalancer(config, {
      clock,
      log: new MemoryLog(),
      retry: { within: 20_000, firstPause: 1000, maxPause: 10_000 },
    });
    const error = await alb.states(['i-1']).then(
      () => new Error('expected a refusal'),
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(BlockedError);
    expect(error.message).toBe(
      "ALB reading target health: AWS throttled DescribeTargetHealth for 15.0 s (15 attempts, with backoff): retry when the account's API is less busy",
    );
  });
});
