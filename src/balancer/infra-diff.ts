import type { HealthCheckSettings } from '../config/types.js';

/** One setting whose value at the balancer differs from deploy.yml. */
export interface SettingChange {
  readonly setting: keyof HealthCheckSettings;
  /** undefined: the balancer does not report it */
  readonly current: number | undefined;
  readonly desired: number;
  /** `apply`: `deploy infra apply` changes it; `manual`: it tells you where to */
  readonly action: 'apply' | 'manual';
}

export const settingKeys = [
  'interval',
  'timeout',
  'unhealthyThreshold',
  'healthyThreshold',
  'deregistrationDelay',
  'slowStart',
  'idleTimeout',
] as const satisfies readonly (keyof HealthCheckSettings)[];

export const durationKeys: ReadonlySet<keyof HealthCheckSettings> = new Set([
  'interval',
  'timeout',
  'deregistrationDelay',
  'slowStart',
  'idleTimeout',
]);

/** The settings deploy.yml names and the balancer has otherwise; unnamed ones are left alone. */
export function diffSettings(
  current: HealthCheckSettings,
  desired: HealthCheckSettings,
  action: (setting: keyof HealthCheckSettings) => SettingChange['action'],
): SettingChange[] {
  const changes: SettingChange[] = [];
  for (const setting of settingKeys) {
    const want = desired[setting];
    if (want === undefined || current[setting] === want) continue;
    changes.push({ setting, current: current[setting], desired: want, action: action(setting) });
  }
  return changes;
}

export function formatValue(setting: keyof HealthCheckSettings, value: number | undefined): string {
  if (value === undefined) return '(not set)';
  if (!durationKeys.has(setting)) return String(value);
  return value % 1000 === 0 ? `${value / 1000}s` : `${value}ms`;
}
