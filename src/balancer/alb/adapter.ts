import type {
  ElasticLoadBalancingV2Client,
  ElasticLoadBalancingV2ClientConfig,
  ModifyTargetGroupCommandInput,
  TargetGroup,
  TargetHealthDescription,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type * as sdkTypes from '@aws-sdk/client-elastic-load-balancing-v2';
import type { AlbHealthCheck } from './health-check.js';
import type { AlbBalancerConfig } from './config/entry.js';
import { awsClientOptions } from '../../aws/client-options.js';
import { albError } from './errors.js';
import { attributeMap, toSettings, toTargetState } from './map.js';
import { isRegistration, targetKey } from './targets.js';
import type { AlbAction } from './permissions.js';
import { defaultRetryPolicy, withRetry, type RetryEpisode, type RetryPolicy } from './retry.js';
import type { Balancer, BalancerDeps, TargetState } from '../balancer.js';
import { BlockedError } from '../../errors.js';
import type { FailOpenMinimum } from '../fail-open.js';
import { failOpenMinimum } from './fail-open.js';
import type { MetricsTarget } from './receipt/cloudwatch.js';

type Sdk = typeof sdkTypes;

export interface AlbDeps extends BalancerDeps {
  readonly retry?: RetryPolicy;
}

/**
 * An ALB (or NLB) target group through the ELBv2 API. The SDK is imported
 * here, on demand: loading it costs a watchdog tick more than its whole work.
 * One client per run; credentials, region (when deploy.yml names none) and
 * the endpoint come from the SDK's standard chains, retries from its standard
 * strategy (AWS_MAX_ATTEMPTS / AWS_RETRY_MODE as the SDK reads them).
 */
export async function createAlbBalancer(
  config: AlbBalancerConfig,
  deps: AlbDeps,
): Promise<AlbBalancer> {
  const sdk = await import('@aws-sdk/client-elastic-load-balancing-v2');
  const client = new sdk.ElasticLoadBalancingV2Client(albClientOptions(config));
  return new AlbBalancer(config, sdk, client, deps);
}

/** the ELBv2 client's options: every AWS client's (aws/client-options.ts) */
export function albClientOptions(config: AlbBalancerConfig): ElasticLoadBalancingV2ClientConfig {
  return awsClientOptions(config.region);
}

export class AlbBalancer implements Balancer {
  readonly kind = 'alb';
  private reported = false;
  private port: Promise<number | undefined> | undefined;

  constructor(
    private readonly config: AlbBalancerConfig,
    private readonly sdk: Sdk,
    private readonly client: ElasticLoadBalancingV2Client,
    private readonly deps: AlbDeps,
  ) {}

  async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    const [descriptions, groupPort] = await Promise.all([this.registrations(), this.groupPort()]);
    return new Map(targets.map((t) => [t, toTargetState(t, descriptions, groupPort)]));
  }

  /**
   * All registered targets, not the named ones: naming an unknown instance
   * makes the whole call fail, where we want that one target `unused`.
   * DescribeTargetHealth (API Reference) has no NextToken: one call lists them all.
   */
  private async registrations(): Promise<TargetHealthDescription[]> {
    const { TargetHealthDescriptions = [] } = await this.call(
      'DescribeTargetHealth',
      'reading target health',
      () =>
        this.client.send(
          new this.sdk.DescribeTargetHealthCommand({ TargetGroupArn: this.config.targetGroupArn }),
        ),
    );
    return TargetHealthDescriptions;
  }

  /**
   * The group's port, which a target written without one is registered on.
   * A group's port cannot be changed (ModifyTargetGroup has no Port), so one
   * read serves the run.
   */
  private groupPort(): Promise<number | undefined> {
    this.port ??= this.describeGroup().then((g) => g?.Port);
    return this.port;
  }

  private async describeGroup(): Promise<TargetGroup | undefined> {
    const TargetGroupArn = this.config.targetGroupArn;
    const groups = await this.call('DescribeTargetGroups', 'reading the target group', () =>
      this.client.send(
        new this.sdk.DescribeTargetGroupsCommand({ TargetGroupArns: [TargetGroupArn] }),
      ),
    );
    return groups.TargetGroups?.[0];
  }

  /**
   * The type of load balancer the group serves, from its protocol
   * (CreateTargetGroup, Protocol: "For Application Load Balancers, the
   * supported protocols are HTTP and HTTPS. For Network Load Balancers, the
   * supported protocols are TCP, TLS, UDP, or TCP_UDP"); undefined for
   * another (GENEVE: a Gateway Load Balancer's).
   */
  async loadBalancerType(): Promise<'application' | 'network' | undefined> {
    const protocol = (await this.describeGroup())?.Protocol ?? '';
    if (['HTTP', 'HTTPS'].includes(protocol)) return 'application';
    return ['TCP', 'TLS', 'UDP', 'TCP_UDP'].includes(protocol) ? 'network' : undefined;
  }

  async settings(): Promise<AlbHealthCheck> {
    const group = await this.describeGroup();
    const attributes = await this.groupAttributes();
    if (!group)
      throw albError(
        { name: 'TargetGroupNotFoundException' },
        'reading the target group',
        this.config,
        'DescribeTargetGroups',
      );
    const LoadBalancerArn = group.LoadBalancerArns?.[0];
    const loadBalancer = LoadBalancerArn
      ? await this.call('DescribeLoadBalancerAttributes', 'reading the load balancer', () =>
          this.client.send(new this.sdk.DescribeLoadBalancerAttributesCommand({ LoadBalancerArn })),
        )
      : undefined;
    return toSettings(group, {
      group: attributes,
      ...(loadBalancer ? { loadBalancer: attributeMap(loadBalancer.Attributes) } : {}),
    });
  }

  /** CloudWatch names a target group's metrics under its load balancer, which the group names. */
  async metricsTarget(): Promise<MetricsTarget> {
    const TargetGroupArn = this.config.targetGroupArn;
    const loadBalancerArn = (await this.describeGroup())?.LoadBalancerArns?.[0];
    if (!loadBalancerArn)
      throw new BlockedError(
        `${TargetGroupArn}: the target group is attached to no load balancer, so CloudWatch has no metrics for it`,
      );
    return {
      targetGroupArn: TargetGroupArn,
      loadBalancerArn,
      ...(this.config.region !== undefined && { region: this.config.region }),
    };
  }

  /** The group's unhealthy-state routing minimum: below it, the ALB routes to every target. */
  async failOpenMinimum(): Promise<FailOpenMinimum> {
    return failOpenMinimum(await this.groupAttributes());
  }

  async deregister(target: string): Promise<void> {
    const Targets = [targetKey(target, await this.groupPort())];
    await this.call('DeregisterTargets', `deregistering ${target}`, () =>
      this.client.send(
        new this.sdk.DeregisterTargetsCommand({
          TargetGroupArn: this.config.targetGroupArn,
          Targets,
        }),
      ),
    );
  }

  async register(target: string): Promise<void> {
    await this.registerAs(target, `registering ${target}`);
  }

  /**
   * Registers only a registration that is there: on the wrong port the call
   * would add a second one (RegisterTargets takes any port), where nothing
   * may listen. A target gone since preflight read it proves nothing.
   */
  async proveRegister(registeredTarget: string): Promise<void> {
    const [descriptions, groupPort] = await Promise.all([this.registrations(), this.groupPort()]);
    const key = targetKey(registeredTarget, groupPort);
    if (!descriptions.some((d) => isRegistration(key, d))) return;
    await this.registerAs(
      registeredTarget,
      `checking RegisterTargets with ${registeredTarget}, registered and healthy already (no change)`,
    );
  }

  private async registerAs(target: string, doing: string): Promise<void> {
    const Targets = [targetKey(target, await this.groupPort())];
    await this.call('RegisterTargets', doing, () =>
      this.client.send(
        new this.sdk.RegisterTargetsCommand({
          TargetGroupArn: this.config.targetGroupArn,
          Targets,
        }),
      ),
    );
  }

  /** `deploy infra apply`: only the calls that change something */
  async modify(
    targetGroup: Omit<ModifyTargetGroupCommandInput, 'TargetGroupArn'>,
    attributes: readonly { Key: string; Value: string }[],
  ): Promise<void> {
    const TargetGroupArn = this.config.targetGroupArn;
    if (Object.keys(targetGroup).length > 0) {
      await this.call('ModifyTargetGroup', 'changing the health check', () =>
        this.client.send(new this.sdk.ModifyTargetGroupCommand({ TargetGroupArn, ...targetGroup })),
      );
    }
    if (attributes.length > 0) {
      await this.call('ModifyTargetGroupAttributes', 'changing target group attributes', () =>
        this.client.send(
          new this.sdk.ModifyTargetGroupAttributesCommand({
            TargetGroupArn,
            Attributes: [...attributes],
          }),
        ),
      );
    }
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }

  private async groupAttributes(): Promise<Map<string, string>> {
    const TargetGroupArn = this.config.targetGroupArn;
    const attributes = await this.call(
      'DescribeTargetGroupAttributes',
      'reading the target group',
      () => this.client.send(new this.sdk.DescribeTargetGroupAttributesCommand({ TargetGroupArn })),
    );
    return attributeMap(attributes.Attributes);
  }

  private async call<T>(action: AlbAction, doing: string, send: () => Promise<T>): Promise<T> {
    try {
      return await withRetry(send, this.deps.clock, this.deps.retry ?? defaultRetryPolicy, (e) =>
        this.recovered(action, e),
      );
    } catch (error) {
      throw albError(error, doing, this.config, action);
    }
  }

  /** Said once per run: a busy account throttles every poll, and one line tells it all. */
  private recovered(action: AlbAction, e: RetryEpisode): void {
    const what = e.cause === 'throttled' ? 'throttled' : 'failed (5xx)';
    this.deps.log.emit({
      level: this.reported ? 'debug' : 'warn',
      event: 'balancer.retry',
      message: `the balancer's API ${what} ${action} for ${(e.elapsed / 1000).toFixed(1)} s (${e.attempts} attempts); retried with backoff and went on`,
    });
    this.reported = true;
  }
}
