import { countingKinds, kindConfig } from './balancer-kinds.js';
import type { KeyPath, RuleProblem } from './kit/where.js';

/**
 * The canary's rules between keys: a source needs what it reads, and a
 * canary needs a baseline — at least one host left on the old release.
 */

type Doc = Readonly<Record<string, unknown>>;

export function canaryRules(doc: Doc): RuleProblem[] {
  const canary = record(record(doc.rollout).canary);
  if (Object.keys(canary).length === 0) return [];
  const at = (key: string): KeyPath => ['rollout', 'canary', key];
  const problems: RuleProblem[] = [];
  const source = canary.source;
  if (source === 'command' && canary.command === undefined)
    problems.push({ path: at('source'), message: 'source command needs rollout.canary.command' });
  if (canary.command !== undefined && source !== 'command')
    problems.push({
      path: at('command'),
      message: 'is only run with source: command; set source: command or remove it',
    });
  const cannot = balancerKinds(doc).find((k) => kindConfig(k)?.countsPerHost !== true);
  if (source === 'balancer' && cannot !== undefined)
    problems.push({
      path: at('source'),
      message: `balancer counts per host only with ${countingKinds} (balancer kind ${cannot} does not): use source service or command`,
    });
  const fleet = list(doc.hosts).length;
  const hosts = canary.hosts ?? 1;
  const wave =
    typeof hosts === 'number'
      ? hosts
      : typeof hosts === 'string' && /^\d+%$/.test(hosts)
        ? Math.max(1, Math.ceil((fleet * Number(hosts.slice(0, -1))) / 100))
        : undefined;
  if (wave !== undefined && fleet > 0 && wave >= fleet)
    problems.push({
      path: at('hosts'),
      message: `is ${wave} of the ${fleet} hosts, leaving none on the old release to compare the canary with; use fewer`,
    });
  return problems;
}

/** `balancer:` or, where the list is written, `balancers:` */
function balancerKinds(doc: Doc): string[] {
  const all = doc.balancers !== undefined ? list(doc.balancers) : [doc.balancer];
  return all.map((b) => record(b).kind).filter((k): k is string => typeof k === 'string');
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? (value as unknown[]) : [];
}
