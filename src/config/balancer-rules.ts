import { kindConfig, kindConfigs, soft404Words } from './balancer-kinds.js';
import { healthCheckKeys, type RawEntry } from './kit/balancer-entry.js';
import { duplicates, list, record, type Rule } from './kit/rule-read.js';
import type { RuleProblem } from './kit/where.js';
import { defaultName } from './normalize-balancer.js';

/**
 * The rules of `balancer:` / `balancers:` that one entry's schema cannot see:
 * which block is given, names and targets across entries and hosts, and what
 * each kind says it can do (balancer-kinds.ts); a kind's own rules are its
 * folder's. Each entry is read where it is written, so a problem points at
 * its own line.
 */

type Doc = Readonly<Record<string, unknown>>;
type Entry = RawEntry;

/** a kind with no API (`blind`): it cannot say a host is out */
const blind = (e: Entry): boolean => kindConfig(e.b.kind)?.blind === true;

/** the kinds with an API, as a message lists them */
function liveKinds(): string {
  const live = kindConfigs.filter(([, c]) => c.blind !== true).map(([name]) => name);
  return `${live.slice(0, -1).join(', ')} and ${live.at(-1) ?? ''}`;
}

function entries(doc: Doc): Entry[] {
  if (doc.balancers !== undefined)
    return list(doc.balancers).map((b, i) => ({ path: ['balancers', i], b: record(b) }));
  return doc.balancer === undefined ? [] : [{ path: ['balancer'], b: record(doc.balancer) }];
}

function oneBlock(doc: Doc): RuleProblem[] {
  if (doc.balancer !== undefined && doc.balancers !== undefined)
    return [
      {
        path: ['balancers'],
        message: 'give balancer (one) or balancers (a list), not both; move balancer into the list',
      },
    ];
  if (doc.balancer === undefined && doc.balancers === undefined)
    return [{ path: ['balancers'], message: 'required: the balancer(s) in front of the hosts' }];
  return [];
}

function uniqueNames(doc: Doc): RuleProblem[] {
  const all = entries(doc);
  if (all.length < 2) return [];
  return duplicates(
    all.map((e) => ({ ...e.b, name: e.b.name ?? defaultName(e.b) })),
    'balancers',
    'name',
    (b) => b.name,
    'balancer name',
  ).map((p) => ({ ...p, message: `${p.message}: set name on one of them` }));
}

function healthCheckTogether({ path, b }: Entry): RuleProblem[] {
  if (kindConfig(b.kind)?.blind === true) return [];
  const settings = [...healthCheckKeys, 'deregistration_delay', 'slow_start', 'idle_timeout'];
  if (!settings.some((key) => b[key] !== undefined)) return [];
  return healthCheckKeys
    .filter((key) => b[key] === undefined)
    .map((key) => ({
      path: [...path, key],
      message: `required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none)`,
    }));
}

/** A balancer with no API cannot say a host is out: beside live ones, its drain would go unconfirmed. */
function blindAlone(doc: Doc): RuleProblem[] {
  const all = entries(doc);
  if (all.length < 2 || all.every(blind)) return [];
  return all.filter(blind).map((e) => ({
    path: [...e.path, 'kind'],
    message: `${String(e.b.kind)} cannot be listed beside balancers with an API (nothing could confirm its drain); list only ${liveKinds()} entries, or only ${String(e.b.kind)} ones`,
  }));
}

function deregisterNeedsAnApi(doc: Doc): RuleProblem[] {
  if (record(doc.drain).method !== 'deregister') return [];
  const none = entries(doc).find(blind);
  if (none === undefined) return [];
  return [
    {
      path: ['drain', 'method'],
      message: `deregister needs a balancer with an API (${liveKinds().replace(' and ', ' or ')}); use health with ${String(none.b.kind)}`,
    },
  ];
}

/** A kind that cannot drain by health (no active health checks) says why. */
function healthDrainRefused(doc: Doc): RuleProblem[] {
  if (record(doc.drain).method === 'deregister') return [];
  const why = entries(doc)
    .map((e) => kindConfig(e.b.kind)?.noHealthDrain)
    .find((m) => m !== undefined);
  return why === undefined ? [] : [{ path: ['drain', 'method'], message: why }];
}

/**
 * A drain answered with 404 is a soft stop only where the balancer reads it
 * so (a kind's `soft404`, which `deploy check --live` may read from the
 * balancer's config); a kind that reads it otherwise says why.
 */
function answer404Refused(doc: Doc): RuleProblem[] {
  if (record(doc.drain).answer !== 404) return [];
  const why = [...new Set(entries(doc).map((e) => kindConfig(e.b.kind)?.no404Drain))].filter(
    (m) => m !== undefined,
  );
  if (why.length === 0) return [];
  return [
    {
      path: ['drain', 'answer'],
      message: `404 is a soft stop only for ${soft404Words} (${why.join('; ')}): use 503`,
    },
  ];
}

/**
 * Each key of `targets` names a host of deploy.yml, and within one balancer
 * no two hosts share a target: a drain of one would take the other out too.
 */
function targetsOfHosts(doc: Doc, { path, b }: Entry): RuleProblem[] {
  const hosts = list(doc.hosts).map(record);
  const names = new Set(hosts.map((h) => h.name).filter((n) => typeof n === 'string'));
  const mapped = record(b.targets);
  const problems: RuleProblem[] = Object.keys(mapped)
    .filter((name) => !names.has(name))
    .map((name) => ({
      path: [...path, 'targets', name],
      message: `names no host of deploy.yml (hosts: ${[...names].join(', ')}); use a hosts[].name`,
    }));
  if (Object.keys(mapped).length === 0) return problems;
  const seen = new Map<string, string>();
  for (const h of hosts) {
    if (typeof h.name !== 'string') continue;
    const target = mapped[h.name] ?? h.target ?? h.address;
    if (typeof target !== 'string') continue;
    const other = seen.get(target);
    if (other !== undefined)
      problems.push({
        path: [...path, 'targets', mapped[h.name] !== undefined ? h.name : other],
        message: `${h.name} and ${other} would both be target ${JSON.stringify(target)} of this balancer; each host needs its own`,
      });
    else seen.set(target, h.name);
  }
  return problems;
}

/** each entry's own kind's rules (its folder's config/) */
function kindRules(doc: Doc, e: Entry): RuleProblem[] {
  return (kindConfig(e.b.kind)?.rules ?? []).flatMap((rule) => rule(doc, e));
}

export const balancerRules: readonly Rule[] = [
  oneBlock,
  uniqueNames,
  blindAlone,
  deregisterNeedsAnApi,
  healthDrainRefused,
  answer404Refused,
  (doc) => entries(doc).flatMap(healthCheckTogether),
  (doc) => entries(doc).flatMap((e) => targetsOfHosts(doc, e)),
  (doc) => entries(doc).flatMap((e) => kindRules(doc, e)),
];
