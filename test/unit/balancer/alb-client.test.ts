import { ElasticLoadBalancingV2Client } from '@aws-sdk/client-elastic-load-balancing-v2';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
