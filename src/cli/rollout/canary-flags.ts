import { readDuration } from '../../config/kit/duration.js';
import type { Config } from '../../config/types.js';
import { UsageError } from '../../errors.js';
import { parseBatchFlag } from '../../rollout/plan.js';
import { batchSize } from '../../timing/bounds.js';

/**
 * `deploy rollout --canary <n|p%> [--canary-bake <duration>]` and
 * `--no-canary`: rollout.canary for this one rollout. The judgement's other
 * keys (source, margin, min_requests …) stay deploy.yml's, or their defaults.
 */

export interface CanaryFlags {
  /** commander: the value of --canary, false for --no-canary, undefined for neither */
  readonly canary?: string | boolean;
  readonly canaryBake?: string;
}

/** the schema's default bake, when neither deploy.yml nor --canary-bake says one */
const DEFAULT_BAKE_MS = 5 * 60_000;

export function withCanaryFlags(config: Config, flags: CanaryFlags, hosts: number): Config {
  const { canary: asked, canaryBake } = flags;
  if (asked === false) {
    if (canaryBake !== undefined)
      throw new UsageError('--canary-bake is a bake for the canary, and --no-canary leaves it out');
    const { canary: _dropped, ...rollout } = config.rollout;
    return { ...config, rollout };
  }
  if (asked === undefined && canaryBake === undefined) return config;
  const current = config.rollout.canary;
  if (asked === undefined && current === undefined)
    throw new UsageError(
      '--canary-bake needs a canary: give --canary <hosts> too, or set rollout.canary in deploy.yml',
    );
  const wave =
    typeof asked === 'string' ? canaryHosts(asked) : (current?.hosts ?? canaryHosts('1'));
  const size = batchSize(wave, hosts);
  if (size >= hosts)
    throw new UsageError(
      `--canary ${String(asked)} is ${size} of the ${hosts} host${hosts === 1 ? '' : 's'} this rollout deploys, leaving none on the old release to compare the canary with; use fewer`,
    );
  const bake = canaryBake !== undefined ? bakeMs(canaryBake) : (current?.bake ?? DEFAULT_BAKE_MS);
  return { ...config, rollout: { ...config.rollout, canary: { hosts: wave, bake } } };
}

function canaryHosts(value: string) {
  try {
    return parseBatchFlag(value);
  } catch {
    throw new UsageError(
      `--canary ${JSON.stringify(value)}: expected a host count like 1 or a share like 10%`,
    );
  }
}

function bakeMs(value: string): number {
  const parsed = readDuration(value);
  if (!parsed.ok) throw new UsageError(`--canary-bake: ${parsed.reason}`);
  return parsed.ms;
}
