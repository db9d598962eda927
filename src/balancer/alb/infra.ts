import type { ModifyTargetGroupCommandInput } from '@aws-sdk/client-elastic-load-balancing-v2';
import type { HealthCheckSettings } from '../../config/types.js';
import { ConfigError, type ConfigProblem } from '../../errors.js';
import type { AlbBalancer } from './adapter.js';
import { diffSettings, type SettingChange } from '../infra-diff.js';

/**
 * Where each setting lives on AWS. The idle timeout belongs to the load
 * balancer, which other target groups share: it is reported, never changed.
 */
const targetGroupFields = {
  interval: 'HealthCheckIntervalSeconds',
  timeout: 'HealthCheckTimeoutSeconds',
  unhealthyThreshold: 'UnhealthyThresholdCount',
  healthyThreshold: 'HealthyThresholdCount',
} as const;
const attributeKeys = {
  deregistrationDelay: 'deregistration_delay.timeout_seconds',
  slowStart: 'slow_start.duration_seconds',
} as const;

export interface AlbInfraPlan {
  readonly changes: readonly SettingChange[];
  readonly targetGroup: Omit<ModifyTargetGroupCommandInput, 'TargetGroupArn'>;
  readonly attributes: readonly { Key: string; Value: string }[];
}

export function planAlbInfra(
  current: HealthCheckSettings,
  desired: HealthCheckSettings,
): AlbInfraPlan {
  // an NLB's group has no slow start attribute (TargetGroupAttribute: "supported only if
  // the load balancer is an Application Load Balancer"): its absence is slow start 0, and
  // sending one is refused by AWS
  const noSlowStart = current.slowStart === undefined && desired.slowStart === 0;
  const want = noSlowStart ? { ...desired, slowStart: undefined } : desired;
  const changes = diffSettings(current, want, (s) => (s === 'idleTimeout' ? 'manual' : 'apply'));
  const problems: ConfigProblem[] = [];
  const targetGroup: Record<string, number> = {};
  const attributes: { Key: string; Value: string }[] = [];
  for (const change of changes) {
    if (change.action !== 'apply') continue;
    const { setting, desired: value } = change;
    const isCount = setting === 'unhealthyThreshold' || setting === 'healthyThreshold';
    // AWS takes whole seconds; rounding here would apply a number nobody wrote
    if (!isCount && value % 1000 !== 0) {
      problems.push({
        path: `balancer.${snake(setting)}`,
        message: `ALB takes whole seconds, got ${value} ms`,
      });
      continue;
    }
    const amount = isCount ? value : value / 1000;
    if (setting in targetGroupFields)
      targetGroup[targetGroupFields[setting as keyof typeof targetGroupFields]] = amount;
    else if (setting in attributeKeys)
      attributes.push({
        Key: attributeKeys[setting as keyof typeof attributeKeys],
        Value: String(amount),
      });
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { changes, targetGroup, attributes };
}

/** Reads run even in a dry run; only the Modify calls are skipped. */
export async function applyAlbInfra(
  balancer: AlbBalancer,
  desired: HealthCheckSettings,
  dryRun: boolean,
): Promise<{ changes: readonly SettingChange[]; applied: boolean }> {
  const plan = planAlbInfra(await balancer.settings(), desired);
  const pending = Object.keys(plan.targetGroup).length > 0 || plan.attributes.length > 0;
  if (dryRun || !pending) return { changes: plan.changes, applied: false };
  await balancer.modify(plan.targetGroup, plan.attributes);
  return { changes: plan.changes, applied: true };
}

function snake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
