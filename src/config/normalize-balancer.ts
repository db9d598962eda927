import { kindConfig, type BalancerConfig, type RawBalancer } from './balancer-kinds.js';
import type { BalancerEntry } from './types.js';

/** One entry as written → as Config holds it, by its kind's config. */
function balancerConfig(raw: RawBalancer, local: (p: string) => string): BalancerConfig {
  // the schema let only a kind of the registry through
  return kindConfig(raw.kind)!.normalize(raw, local);
}

/**
 * `balancers:` (or `balancer:`, its one-element spelling) → one list. A name
 * not given is the kind and what the balancer is reached by, so two HAProxies
 * differ by their sockets and two target groups by their names.
 */
export function balancerEntries(
  raw: { balancer?: RawBalancer | undefined; balancers?: readonly RawBalancer[] | undefined },
  local: (p: string) => string,
): BalancerEntry[] {
  const list = raw.balancers ?? (raw.balancer ? [raw.balancer] : []);
  return list.map((b) => ({
    ...balancerConfig(b, local),
    name: b.name ?? defaultName(b) ?? b.kind,
    targets: { ...b.targets },
  }));
}

/** The kind and how the balancer is reached; read from the raw document by the rules too. */
export function defaultName(b: Readonly<Record<string, unknown>>): string | undefined {
  return kindConfig(b.kind)?.defaultName(b);
}
