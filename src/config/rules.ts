import type { RuleProblem } from './where.js';
import { healthCheckKeys } from './balancer-schema.js';
import { canaryRules } from './canary-rules.js';
import { envRules } from './env-rules.js';
import { HAPROXY_NAME, HAPROXY_NAME_RULE } from './names.js';

/**
 * Rules between keys, which a schema of single values cannot see. They read the
 * raw document defensively (a value of the wrong type is the schema's problem,
 * reported beside these), so a file with a typo *and* a duplicate host name
 * gets both lines in one run.
 */

export type { RuleProblem } from './where.js';

type Rule = (doc: Readonly<Record<string, unknown>>) => RuleProblem[];

export function checkRules(data: unknown): RuleProblem[] {
  if (!isRecord(data)) return [];
  return rules.flatMap((rule) => rule(data));
}

const rules: readonly Rule[] = [
  (doc) => duplicates(list(doc.hosts), 'hosts', 'name', (h) => h.name, 'host name'),
  (doc) => duplicates(list(doc.hosts), 'hosts', 'target', (h) => h.target ?? h.address, 'target'),
  (doc) => duplicates(list(doc.services), 'services', 'name', (s) => s.name, 'service name'),
  batchFitsFleet,
  commandsMatchRuntime,
  healthCheckTogether,
  deregisterNeedsAnApi,
  haproxyNames,
  lockNotShared,
  envRules,
  canaryRules,
];

function duplicates(
  items: unknown[],
  where: string,
  key: string,
  valueOf: (item: Record<string, unknown>) => unknown,
  what: string,
): RuleProblem[] {
  const seen = new Map<string, number>();
  const problems: RuleProblem[] = [];
  items.forEach((item, i) => {
    const value = isRecord(item) ? valueOf(item) : undefined;
    if (typeof value !== 'string') return;
    const first = seen.get(value);
    if (first === undefined) seen.set(value, i);
    else
      problems.push({
        path: [where, i, key],
        message: `duplicate ${what} ${JSON.stringify(value)} (also ${where}[${first}]); each must be unique`,
      });
  });
  return problems;
}

function batchFitsFleet(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const batch = record(doc.rollout).batch;
  const fleet = list(doc.hosts).length;
  if (typeof batch !== 'number' || fleet === 0 || batch <= fleet) return [];
  return [
    {
      path: ['rollout', 'batch'],
      message: `${batch} is more than the ${fleet} host${fleet === 1 ? '' : 's'} in hosts; use at most ${fleet} or a percentage`,
    },
  ];
}

function commandsMatchRuntime(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const kind = record(doc.runtime).kind;
  const problems: RuleProblem[] = [];
  list(doc.services).forEach((service, i) => {
    if (!isRecord(service)) return;
    for (const key of ['start', 'stop', 'status']) {
      const given = service[key] !== undefined;
      if (kind === 'command' && !given)
        problems.push({
          path: ['services', i, key],
          message: 'required when runtime.kind is command',
        });
      if (kind === 'compose' && given)
        problems.push({
          path: ['services', i, key],
          message: 'not used with runtime.kind compose (compose runs the services); remove it',
        });
    }
  });
  return problems;
}

function healthCheckTogether(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const balancer = record(doc.balancer);
  if (balancer.kind !== 'alb' && balancer.kind !== 'haproxy') return [];
  const settings = [...healthCheckKeys, 'deregistration_delay', 'slow_start', 'idle_timeout'];
  if (!settings.some((key) => balancer[key] !== undefined)) return [];
  return healthCheckKeys
    .filter((key) => balancer[key] === undefined)
    .map((key) => ({
      path: ['balancer', key],
      message: `required with the other health-check settings (give interval, timeout, unhealthy_threshold and healthy_threshold together, or none)`,
    }));
}

function deregisterNeedsAnApi(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  if (record(doc.drain).method !== 'deregister' || record(doc.balancer).kind !== 'static')
    return [];
  return [
    {
      path: ['drain', 'method'],
      message: 'deregister needs a balancer with an API (alb or haproxy); use health with static',
    },
  ];
}

/**
 * HAProxy's runtime API reads `;` and a newline as the start of another
 * command, so the backend and server names are refused here, at load time,
 * not by the adapter half-way through a rollout.
 */
function haproxyNames(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const balancer = record(doc.balancer);
  if (balancer.kind !== 'haproxy') return [];
  const problems: RuleProblem[] = [];
  const bad = (value: unknown): boolean => typeof value === 'string' && !HAPROXY_NAME.test(value);
  if (bad(balancer.backend))
    problems.push({
      path: ['balancer', 'backend'],
      message: `is not an haproxy backend name (${HAPROXY_NAME_RULE})`,
    });
  list(doc.hosts).forEach((host, i) => {
    const { target, address } = record(host);
    if (target !== undefined ? bad(target) : bad(address))
      problems.push({
        path: ['hosts', i, target !== undefined ? 'target' : 'address'],
        message: `is not an haproxy server name (${HAPROXY_NAME_RULE})${target === undefined ? '; set target to the server name' : ''}`,
      });
  });
  return problems;
}

/** directories every local user may write: a lock there can be planted or held by anyone */
const sharedDirs = ['/tmp', '/var/tmp', '/dev/shm', '/run/lock', '/var/lock'];

function lockNotShared(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const lock = record(doc.host).lock;
  if (typeof lock !== 'string' || !sharedDirs.includes(lock.replace(/\/+[^/]*\/*$/, ''))) return [];
  return [
    {
      path: ['host', 'lock'],
      message: `must not be directly in a directory every user can write (${sharedDirs.join(', ')}); use a root-owned one such as /run/handoff/<service>.lock (the default)`,
    },
  ];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return isRecord(value) ? value : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}
