import type { BalancerConfig } from '../config/types.js';
import type { BalancerKind } from './kind.js';

type ConfigOf<K extends BalancerConfig['kind']> = Extract<BalancerConfig, { kind: K }>;

/**
 * The balancer kinds, one line each: a kind is its folder, loaded on demand
 * (the watchdog never talks to a balancer and must not pay for the AWS SDK).
 */
const registry: {
  readonly [K in BalancerConfig['kind']]: () => Promise<BalancerKind<ConfigOf<K>>>;
} = {
  alb: async () => (await import('./alb/kind.js')).alb,
  haproxy: async () => (await import('./haproxy/kind.js')).haproxy,
  nginx: async () => (await import('./nginx/kind.js')).nginx,
  static: async () => (await import('./static/kind.js')).staticKind,
};

/** The kind of one entry, typed for it. */
export async function kindOf<E extends BalancerConfig>(entry: E): Promise<BalancerKind<E>> {
  // each line of the registry is typed for its own kind; entry.kind picks that line
  return (await registry[entry.kind]()) as unknown as BalancerKind<E>;
}

/** A kind by its name, for what asks of a kind rather than of one entry (a live adapter's kind). */
export async function kindNamed(kind: BalancerConfig['kind']): Promise<BalancerKind> {
  return registry[kind]();
}
