import type { KeyPath, RuleProblem } from './where.js';
import { awsRangeProblems } from './alb-ranges.js';
import { healthCheckKeys } from './balancer-schema.js';
import { HAPROXY_NAME, HAPROXY_NAME_RULE } from './names.js';
import { defaultName } from './normalize-balancer.js';
import { duplicates, list, record, type Rule } from './rule-read.js';

/**
 * The rules of `balancer:` / `balancers:` that one entry's schema cannot see:
 * which block is given, names and targets across entries and hosts. Each
 * entry is read where it is written, so a problem points at its own line.
 */

type Doc = Readonly<Record<string, unknown>>;

interface Entry {
  readonly path: KeyPath;
  readonly b: Doc;
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
  if (b.kind === 'static') return [];
  const settings = [...healthCheckKeys, 'deregistration_delay', 'slow_start', 'idle_timeout'];
  if (!settings.some((key) => b[key] !== undefined)) return [];
  return healthCheckKeys
    .filter((key) => b[key] === undefined)
    .map((key) => ({
      path: [...path, key],
      message: `required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none)`,
    }));
}

/** A static balancer cannot say a host is out: beside live ones, its drain would go unconfirmed. */
function staticAlone(doc: Doc): RuleProblem[] {
  const all = entries(doc);
  if (all.length < 2 || all.every((e) => e.b.kind === 'static')) return [];
  return all
    .filter((e) => e.b.kind === 'static')
    .map((e) => ({
      path: [...e.path, 'kind'],
      message:
        'static cannot be listed beside balancers with an API (nothing could confirm its drain); list only alb, haproxy and nginx entries, or only static ones',
    }));
}

function deregisterNeedsAnApi(doc: Doc): RuleProblem[] {
  if (record(doc.drain).method !== 'deregister') return [];
  if (!entries(doc).some((e) => e.b.kind === 'static')) return [];
  return [
    {
      path: ['drain', 'method'],
      message:
        'deregister needs a balancer with an API (alb, haproxy or nginx); use health with static',
    },
  ];
}

/**
 * Open-source nginx has no active health checks: a host's 503 never takes it
 * out, only a `down` server line does (balancer/nginx/). With drain.method
 * health a rollout would wait for a drain that never comes.
 */
function nginxNeedsDeregister(doc: Doc): RuleProblem[] {
  if (record(doc.drain).method === 'deregister') return [];
  if (!entries(doc).some((e) => e.b.kind === 'nginx')) return [];
  return [
    {
      path: ['drain', 'method'],
      message:
        "nginx has no active health checks, so a host's 503 never takes it out: set drain.method deregister (a drain marks its server line down and reloads nginx)",
    },
  ];
}

/**
 * A drain answered with 404 is a soft stop only where the balancer reads it
 * so: HAProxy with `http-check disable-on-404` (`deploy check --live` reads
 * the backend for it). An ALB or NLB counts a 404 as unhealthy like a 503, or
 * as healthy when its matcher takes 404 (the host would never leave); nginx
 * has no active checks. A static balancer's checks are the user's to know.
 */
function answer404NeedsHaproxy(doc: Doc): RuleProblem[] {
  if (record(doc.drain).answer !== 404) return [];
  const others = entries(doc).filter((e) => e.b.kind === 'alb' || e.b.kind === 'nginx');
  if (others.length === 0) return [];
  const kinds = [...new Set(others.map((e) => String(e.b.kind)))].join(' and ');
  return [
    {
      path: ['drain', 'answer'],
      message: `404 is a soft stop only for HAProxy with http-check disable-on-404, not ${kinds} (an ALB or NLB reads 404 as unhealthy like 503, or as healthy when its matcher takes it; nginx has no active checks): use 503`,
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

/**
 * HAProxy's runtime API reads `;` and a newline as the start of another
 * command, so the backend and server names are refused here, at load time,
 * not by the adapter half-way through a rollout.
 */
function haproxyNames(doc: Doc, { path, b }: Entry): RuleProblem[] {
  if (b.kind !== 'haproxy') return [];
  const problems: RuleProblem[] = [];
  const bad = (value: unknown): boolean => typeof value === 'string' && !HAPROXY_NAME.test(value);
  if (bad(b.backend))
    problems.push({
      path: [...path, 'backend'],
      message: `is not an haproxy backend name (${HAPROXY_NAME_RULE})`,
    });
  const mapped = record(b.targets);
  list(doc.hosts).forEach((host, i) => {
    const { target, address, name } = record(host);
    if (typeof name === 'string' && mapped[name] !== undefined) {
      if (bad(mapped[name]))
        problems.push({
          path: [...path, 'targets', name],
          message: `is not an haproxy server name (${HAPROXY_NAME_RULE})`,
        });
      return;
    }
    if (target !== undefined ? bad(target) : bad(address))
      problems.push({
        path: ['hosts', i, target !== undefined ? 'target' : 'address'],
        message: `is not an haproxy server name (${HAPROXY_NAME_RULE})${target === undefined ? '; set target to the server name' : ''}`,
      });
  });
  return problems;
}

export const balancerRules: readonly Rule[] = [
  oneBlock,
  uniqueNames,
  staticAlone,
  deregisterNeedsAnApi,
  nginxNeedsDeregister,
  answer404NeedsHaproxy,
  (doc) => entries(doc).flatMap(healthCheckTogether),
  (doc) => entries(doc).flatMap((e) => targetsOfHosts(doc, e)),
  (doc) => entries(doc).flatMap((e) => haproxyNames(doc, e)),
  (doc) => entries(doc).flatMap((e) => (e.b.kind === 'alb' ? awsRangeProblems(e.path, e.b) : [])),
];
