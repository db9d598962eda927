import * as z from 'zod';
import { albConfig } from '../balancer/alb/config/entry.js';
import { haproxyConfig } from '../balancer/haproxy/config/entry.js';
import { nginxConfig } from '../balancer/nginx/config/entry.js';
import { staticConfig } from '../balancer/static/config/entry.js';
import type { KindConfig } from './kit/balancer-entry.js';

/**
 * The balancer kinds' configs, one line each: each is its kind's folder's
 * (`src/balancer/<kind>/config/`, which imports nothing of config/ but its
 * kit). The rest of config/ asks this list and names no kind.
 */
const kinds = {
  alb: albConfig,
  haproxy: haproxyConfig,
  nginx: nginxConfig,
  static: staticConfig,
};

type Kinds = typeof kinds;
export type BalancerKindName = keyof Kinds;
type EntryOf<C> = C extends KindConfig<z.ZodObject, infer E> ? E : never;

/** One balancer's settings, of whichever kind. */
export type BalancerConfig = { [K in BalancerKindName]: EntryOf<Kinds[K]> }[BalancerKindName];

type AnyKindConfig = KindConfig<z.ZodObject, BalancerConfig>;

const names = Object.keys(kinds) as BalancerKindName[];

/** a kind's config by its name, or undefined for a name that is no kind */
export function kindConfig(name: unknown): AnyKindConfig | undefined {
  if (typeof name !== 'string' || !Object.hasOwn(kinds, name)) return undefined;
  // each line is typed for its own kind; a caller hands it only an entry of that kind
  return kinds[name as BalancerKindName];
}

/** every kind's name and config, for a rule that asks them all */
export const kindConfigs: readonly (readonly [BalancerKindName, AnyKindConfig])[] = names.map(
  (name) => [name, kindConfig(name)!] as const,
);

/** where a drain answered with 404 is a soft stop, as messages say it: the kinds' `soft404` */
export const soft404Words = kindConfigs.flatMap(([, c]) => c.soft404 ?? []).join(' or ');

/** the kinds that count requests per host (`countsPerHost`), as messages name them */
export const countingKinds = kindConfigs
  .filter(([, c]) => c.countsPerHost === true)
  .map(([name]) => name)
  .join(', ');

/** the `balancer:` block `deploy init` writes: a kind that needs no API, so the starter loads and checks as it stands */
export const starterBalancer = staticConfig.starter ?? '';

/** every kind's entry schema, from the list above: a new kind is one line there, not two */
type KindSchema = Kinds[BalancerKindName]['schema'];
const schemas = names.map((name) => kinds[name].schema) as [KindSchema, ...KindSchema[]];

export const balancerSchema = z
  .discriminatedUnion('kind', schemas, {
    error: (issue) =>
      issue.code === 'invalid_union' ? `must be one of ${names.join(', ')}` : undefined,
  })
  .meta({ description: 'a load balancer in front of the hosts' });

export const balancersSchema = z
  .array(balancerSchema)
  .min(1, { error: 'needs at least one balancer' })
  .meta({
    description:
      'every balancer in front of the hosts (an HAProxy pair, several target groups, a mix); a host is out of rotation only when every one says so',
  });

export type RawBalancer = z.output<typeof balancerSchema>;
