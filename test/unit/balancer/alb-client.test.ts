import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DescribeTargetHealthCommand } from '@aws-sdk/client-elastic-load-balancing-v2';
import { AWS_HTTP_TIMEOUTS } from '../../../src/aws/client-options.js';
import { albClientOptions } from '../../../src/balancer/alb/adapter.js';
import type { AlbBalancerConfig } from '../../../src/balancer/alb/config/entry.js';

const config: AlbBalancerConfig = {
  kind: 'alb',
  targetGroupArn: 'arn:aws:elasticloadbalancing:eu-west-1:123456789012:targetgroup/api/abc',
  region: 'eu-west-1',
};

/** The retry settings the real client resolves from our options and the environment. */
async function retries(): Promise<{ maxAttempts: number; retryMode: string }> {
  const client = new ElasticLoadBalancingV2Client(albClientOptions(config));
  try {
    const mode = client.config.retryMode;
    return {
      maxAttempts: await client.config.maxAttempts(),
      retryMode: typeof mode === 'string' ? mode : await mode(),
    };
  } finally {
    client.destroy();
  }
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('the ALB client, retries', () => {
  it("uses the SDK's standard strategy with 3 attempts when nothing says otherwise", async () => {
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/handoff-test-aws-config');
    vi.stubEnv('AWS_MAX_ATTEMPTS', undefined);
    vi.stubEnv('AWS_RETRY_MODE', undefined);
    expect(await retries()).toEqual({ maxAttempts: 3, retryMode: 'standard' });
  });

  it('honours AWS_MAX_ATTEMPTS and AWS_RETRY_MODE when they are set', async () => {
    vi.stubEnv('AWS_CONFIG_FILE', '/nonexistent/handoff-test-aws-config');
    vi.stubEnv('AWS_MAX_ATTEMPTS', '7');
    vi.stubEnv('AWS_RETRY_MODE', 'adaptive');
    expect(await retries()).toEqual({ maxAttempts: 7, retryMode: 'adaptive' });
  });
});

describe('the ALB client, timeouts', () => {
  it('has a connect and an answer timeout, and this SDK throws on the answer one', async () => {
    expect(albClientOptions(config).requestHandler).toBe(AWS_HTTP_TIMEOUTS);
    // an endpoint that takes the connection and never answers: what a half-open path looks like
    const silent = net.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as net.AddressInfo;
    const client = new ElasticLoadBalancingV2Client({
      ...albClientOptions(config),
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      maxAttempts: 1,
      requestHandler: { ...AWS_HTTP_TIMEOUTS, requestTimeout: 300 },
    });
    try {
      const failure = await client
        .send(new DescribeTargetHealthCommand({ TargetGroupArn: config.targetGroupArn }))
        .catch((e: unknown) => e);
      expect((failure as Error).name).toBe('TimeoutError');
    } finally {
      client.destroy();
      silent.close();
    }
  });
});
