import { afterEach, describe, expect, it } from 'vitest';
import { AWS_HTTP_TIMEOUTS, awsClientOptions } from '../../../src/aws/client-options.js';

describe('every AWS client’s options', () => {
  const before = process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  afterEach(() => {
    if (before === undefined) delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    else process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = before;
  });

  it('carry the connect and answer timeouts, and the region deploy.yml names', () => {
    const options = awsClientOptions('eu-west-1');
    expect(options.requestHandler).toBe(AWS_HTTP_TIMEOUTS);
    expect(options.region).toBe('eu-west-1');
    expect(AWS_HTTP_TIMEOUTS).toEqual({
      connectionTimeout: 5_000,
      requestTimeout: 20_000,
      throwOnRequestTimeout: true,
    });
  });

  it('leave the region to the SDK’s chain when deploy.yml names none', () => {
    expect(awsClientOptions(undefined)).not.toHaveProperty('region');
    expect(awsClientOptions('')).not.toHaveProperty('region');
  });

  it('give a logger that prints nothing, and silence the SDK’s Node version notice', () => {
    delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const { logger } = awsClientOptions(undefined);
    for (const level of ['debug', 'info', 'warn', 'error'] as const)
      expect(logger[level]()).toBeUndefined();
    expect(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
  });
});
