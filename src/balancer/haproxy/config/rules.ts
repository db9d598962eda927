import type { RawEntry } from '../../../config/kit/balancer-entry.js';
import { list, record } from '../../../config/kit/rule-read.js';
import type { RuleProblem } from '../../../config/kit/where.js';
import { HAPROXY_NAME, HAPROXY_NAME_RULE } from './names.js';

/**
 * HAProxy's runtime API reads `;` and a newline as the start of another
 * command, so the backend and server names are refused here, at load time,
 * not by the adapter half-way through a rollout.
 */
export function haproxyNames(
  doc: Readonly<Record<string, unknown>>,
  { path, b }: RawEntry,
): RuleProblem[] {
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
