import type {
  ElasticLoadBalancingV2Client,
  ModifyTargetGroupCommandInput,
} from '@aws-sdk/client-elastic-load-balancing-v2';
import type * as sdkTypes from '@aws-sdk/client-elastic-load-balancing-v2';
import type { AlbBalancerConfig, HealthCheckSettings } from '../config/types.js';
import { albError } from './alb-errors.js';
import { attributeMap, toSettings, toTargetDescription, toTargetState } from './alb-map.js';
import type { Balancer, TargetState } from './balancer.js';

type Sdk = typeof sdkTypes;

/**
 * An ALB (or NLB) target group through the ELBv2 API. The SDK is imported
 * here, on demand: loading it costs a watchdog tick more than its whole work.
 */
export async function createAlbBalancer(config: AlbBalancerConfig): Promise<AlbBalancer> {
  const sdk = await import('@aws-sdk/client-elastic-load-balancing-v2');
  return new AlbBalancer(
    config,
    sdk,
    new sdk.ElasticLoadBalancingV2Client({ region: config.region }),
  );
}

export class AlbBalancer implements Balancer {
  readonly kind = 'alb';

  constructor(
    private readonly config: AlbBalancerConfig,
    private readonly sdk: Sdk,
    private readonly client: ElasticLoadBalancingV2Client,
  ) {}

  async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    // all registered targets, not the named ones: naming an unknown instance
    // makes the whole call fail, where we want that one target `unused`
    const { TargetHealthDescriptions = [] } = await this.call('reading target health', () =>
      this.client.send(
        new this.sdk.DescribeTargetHealthCommand({ TargetGroupArn: this.config.targetGroupArn }),
      ),
    );
    return new Map(targets.map((t) => [t, toTargetState(t, TargetHealthDescriptions)]));
  }

  async settings(): Promise<HealthCheckSettings> {
    const TargetGroupArn = this.config.targetGroupArn;
    const [groups, attributes] = await this.call('reading the target group', () =>
      Promise.all([
        this.client.send(
          new this.sdk.DescribeTargetGroupsCommand({ TargetGroupArns: [TargetGroupArn] }),
        ),
        this.client.send(new this.sdk.DescribeTargetGroupAttributesCommand({ TargetGroupArn })),
      ]),
    );
    const group = groups.TargetGroups?.[0];
    if (!group)
      throw albError(
        { name: 'TargetGroupNotFoundException' },
        'reading the target group',
        this.config,
      );
    const LoadBalancerArn = group.LoadBalancerArns?.[0];
    const loadBalancer = LoadBalancerArn
      ? await this.call('reading the load balancer', () =>
          this.client.send(new this.sdk.DescribeLoadBalancerAttributesCommand({ LoadBalancerArn })),
        )
      : undefined;
    return toSettings(group, {
      group: attributeMap(attributes.Attributes),
      ...(loadBalancer ? { loadBalancer: attributeMap(loadBalancer.Attributes) } : {}),
    });
  }

  async deregister(target: string): Promise<void> {
    await this.call(`deregistering ${target}`, () =>
      this.client.send(
        new this.sdk.DeregisterTargetsCommand({
          TargetGroupArn: this.config.targetGroupArn,
          Targets: [toTargetDescription(target)],
        }),
      ),
    );
  }

  async register(target: string): Promise<void> {
    await this.call(`registering ${target}`, () =>
      this.client.send(
        new this.sdk.RegisterTargetsCommand({
          TargetGroupArn: this.config.targetGroupArn,
          Targets: [toTargetDescription(target)],
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
      await this.call('changing the health check', () =>
        this.client.send(new this.sdk.ModifyTargetGroupCommand({ TargetGroupArn, ...targetGroup })),
      );
    }
    if (attributes.length > 0) {
      await this.call('changing target group attributes', () =>
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

  private async call<T>(doing: string, send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error) {
      throw albError(error, doing, this.config);
    }
  }
}
