/**
 * Every AWS client's HTTP timeouts. The SDK's own are none: a call to an
 * endpoint whose packets are dropped waits as long as the kernel retries its
 * connection, minutes, while a host may be drained. Connecting takes at most
 * 5 s, an answer 20 s (the SDK only warns past its requestTimeout unless told
 * to throw); the SDK's retries (AWS_MAX_ATTEMPTS, 3 by default) still apply.
 */
export const AWS_HTTP_TIMEOUTS = {
  connectionTimeout: 5_000,
  requestTimeout: 20_000,
  throwOnRequestTimeout: true,
} as const;

const noop = (): undefined => undefined;

/**
 * What every AWS client handoff makes is given: its region when deploy.yml
 * names one (else the SDK's chain: AWS_REGION, the profile), the timeouts
 * above, and a silent logger: the SDK's own warnings are not the tool's
 * output, errors reach the user as one line each (errors.ts). Retries are
 * left to the SDK's chain (AWS_RETRY_MODE / AWS_MAX_ATTEMPTS, the profile,
 * then standard, 3): a value given here would override what the operator set.
 */
export function awsClientOptions(region: string | undefined) {
  // the SDK's notice about future Node.js support is for whoever maintains this
  // tool, not for the operator: it would be the only SDK text in the output
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return {
    ...(region !== undefined && region !== '' ? { region } : {}),
    requestHandler: AWS_HTTP_TIMEOUTS,
    logger: { debug: noop, info: noop, warn: noop, error: noop },
  };
}
