import type { RuleProblem } from './kit/where.js';
import { envValueProblem } from './env-value.js';

/**
 * `env:` and `ssh.sudo` between keys: a name handoff writes itself, a name
 * that is both clear and secret, a clear value `.env` cannot carry, and sudo
 * asked of root. Read defensively: wrong types are the schema's to report.
 */
export function envRules(doc: Readonly<Record<string, unknown>>): RuleProblem[] {
  const env = record(doc.env);
  const clear = record(env.clear);
  const secret = Array.isArray(env.secret) ? (env.secret as unknown[]) : [];
  const problems: RuleProblem[] = [];
  for (const [name, value] of Object.entries(clear)) {
    const reserved = reservedProblem(name);
    if (reserved) problems.push({ path: ['env', 'clear', name], message: reserved });
    const bad = typeof value === 'string' ? envValueProblem(value) : undefined;
    if (bad) problems.push({ path: ['env', 'clear', name], message: bad });
  }
  const seen = new Set<string>();
  secret.forEach((entry, i) => {
    problems.push(...sourceProblems(entry, i));
    const name = typeof entry === 'string' ? entry : record(entry).name;
    if (typeof name !== 'string') return;
    const reserved = reservedProblem(name);
    if (reserved) problems.push({ path: ['env', 'secret', i], message: reserved });
    if (name in clear)
      problems.push({
        path: ['env', 'secret', i],
        message: `${name} is also in env.clear; a variable is either clear or secret`,
      });
    if (seen.has(name))
      problems.push({ path: ['env', 'secret', i], message: `${name} is listed twice` });
    seen.add(name);
  });
  const ssh = record(doc.ssh);
  if (ssh.sudo === true && ssh.user === 'root')
    problems.push({
      path: ['ssh', 'sudo'],
      message: 'ssh.user is root, which needs no sudo; remove ssh.sudo or use a non-root user',
    });
  return problems;
}

const SOURCES = ['aws_secret', 'ssm', 'command'] as const;
/** the keys that belong to one source */
const ONLY_WITH: Readonly<Record<string, readonly string[]>> = {
  key: ['aws_secret'],
  region: ['aws_secret', 'ssm'],
  timeout: ['command'],
};

/** A mapping entry of env.secret names at most one source, and only that source's keys. */
function sourceProblems(entry: unknown, i: number): RuleProblem[] {
  if (typeof entry !== 'object' || entry === null) return [];
  const given = record(entry);
  const sources = SOURCES.filter((s) => s in given);
  const path = ['env', 'secret', i];
  if (sources.length > 1)
    return [
      {
        path,
        message: `names ${sources.join(' and ')}: a secret comes from one place; keep one`,
      },
    ];
  const problems: RuleProblem[] = [];
  for (const [key, owners] of Object.entries(ONLY_WITH)) {
    if (key in given && !owners.some((o) => sources.includes(o as (typeof SOURCES)[number])))
      problems.push({
        path: [...path, key],
        message: `goes with ${owners.join(' or ')}, which this entry does not name`,
      });
  }
  return problems;
}

/** RELEASE and HANDOFF_* are written by handoff itself (host/release-env.ts) */
export function reservedProblem(name: string): string | undefined {
  return name === 'RELEASE' || name.startsWith('HANDOFF_')
    ? `${name} is set by handoff itself (RELEASE, HANDOFF_*); use another name`
    : undefined;
}

function record(value: unknown): Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
