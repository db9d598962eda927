import { balancerRules } from './balancer-rules.js';
import { duplicates, isRecord, list, record, type Rule } from './kit/rule-read.js';
import type { RuleProblem } from './kit/where.js';
import { canaryRules } from './canary-rules.js';
import { envRules } from './env-rules.js';
import { cleanHostPath, hostPathRules, sharedDirs } from './host-paths.js';

/**
 * Rules between keys, which a schema of single values cannot see. They read the
 * raw document defensively (a value of the wrong type is the schema's problem,
 * reported beside these), so a file with a typo *and* a duplicate host name
 * gets both lines in one run.
 */

export type { RuleProblem } from './kit/where.js';

export function checkRules(data: unknown): RuleProblem[] {
  if (!isRecord(data)) return [];
  return rules.flatMap((rule) => rule(data));
}

const rules: readonly Rule[] = [
  (doc) => duplicates(list(doc.hosts), 'hosts', 'name', (h) => h.name, 'host name'),
  (doc) => duplicates(list(doc.hosts), 'hosts', 'target', (h) => h.target ?? h.address, 'target'),
  (doc) => duplicates(list(doc.services), 'services', 'name', (s) => s.name, 'service name'),
  batchFitsFleet,
  maxUnreachableNeedsSkip,
  commandsMatchRuntime,
  ...balancerRules,
  lockNotShared,
  hostPathRules,
  envRules,
  canaryRules,
];

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

function maxUnreachableNeedsSkip(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const rollout = record(doc.rollout);
  if (rollout.max_unreachable === undefined || rollout.unreachable === 'skip') return [];
  return [
    {
      path: ['rollout', 'max_unreachable'],
      message: 'applies only with rollout.unreachable: skip; add that, or remove this key',
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
    if (kind === 'compose' && service.logs !== undefined)
      problems.push({
        path: ['services', i, 'logs'],
        message: 'not used with runtime.kind compose (deploy logs reads compose logs); remove it',
      });
  });
  return problems;
}

function lockNotShared(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const given = record(doc.host).lock;
  const lock = typeof given === 'string' ? cleanHostPath(given) : undefined;
  if (lock === undefined || !sharedDirs.includes(lock.replace(/\/[^/]*$/, ''))) return [];
  return [
    {
      path: ['host', 'lock'],
      message: `must not be directly in a directory every user can write (${sharedDirs.join(', ')}); use a root-owned one such as /run/handoff/<service>.lock (the default)`,
    },
  ];
}
