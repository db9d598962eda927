/**
 * An operation's arguments as the table (ops.ts) declares them: written as
 * flags by the client, read from argv by the agent, and checked by the agent
 * however they came (argv or a session's call line).
 */
import { MAX_DURATION_MS } from '../config/kit/duration.js';
import { UsageError } from '../errors.js';
import { checkReleaseId } from '../release-id.js';
import { OPS, type AgentOp } from './ops.js';
import type { ArgKind } from './spec.js';

/** Arguments as they travel: a session's call line carries exactly this object. */
export type CallArgs = Readonly<Record<string, string | number | boolean | undefined>>;

/** argv as read by parseArgs (cli/flag-table.ts): camelCase keys, strings and switches */
export type FlagArgs = Readonly<Record<string, string | boolean | undefined>>;

const COUNT_MAX = 1_000_000;

export const flagOf = (name: string): string =>
  `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** `{leaseMs: 5, allowDraining: true}` → `--lease-ms 5 --allow-draining` */
export function toFlags(args: CallArgs): string[] {
  const flags: string[] = [];
  for (const [key, value] of Object.entries(args)) {
    if (value === undefined || value === false) continue;
    flags.push(...(value === true ? [flagOf(key)] : [flagOf(key), String(value)]));
  }
  return flags;
}

/** A whole number up to `max`; the `ms` kind stops at what a timer can wait (duration.ts). */
function whole(value: string | boolean, flag: string, max: number): number {
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) > max)
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a whole number up to ${max}`);
  return Number(value);
}

function fromFlag(kind: ArgKind, value: string | boolean, flag: string): string | number | boolean {
  if (kind === 'switch') return value === true;
  if (kind === 'ms') return whole(value, flag, MAX_DURATION_MS);
  if (kind === 'count') return whole(value, flag, COUNT_MAX);
  if (typeof value !== 'string') throw new UsageError(`${flag} needs a value`);
  return value;
}

/** `op`'s arguments from its flags, typed by their kind; a flag it does not take is refused. */
export function readFlags(op: AgentOp, flags: FlagArgs): CallArgs {
  const decls: Readonly<Record<string, { kind: ArgKind }>> = OPS[op].args;
  const args: Record<string, string | number | boolean> = {};
  for (const [name, value] of Object.entries(flags)) {
    if (value === undefined) continue;
    const decl = decls[name];
    if (!decl) throw new UsageError(`${op} does not take ${flagOf(name)}`);
    args[name] = fromFlag(decl.kind, value, flagOf(name));
  }
  return args;
}

const TYPE: Readonly<Record<ArgKind, string>> = {
  text: 'string',
  release: 'string',
  ms: 'number',
  count: 'number',
  switch: 'boolean',
};

/**
 * What the agent holds of any operation's arguments before it runs it: the
 * required ones are there, each has its kind's type, and a release id names
 * no path outside host.root (`../../x` must not reach the disk).
 */
export function checkArgs(op: AgentOp, args: CallArgs): void {
  const decls: Readonly<Record<string, { kind: ArgKind; required?: true }>> = OPS[op].args;
  for (const [name, decl] of Object.entries(decls)) {
    const value = args[name];
    if (value === undefined) {
      if (decl.required) throw new UsageError(`missing ${flagOf(name)}`);
      continue;
    }
    if (typeof value !== TYPE[decl.kind])
      throw new UsageError(
        `${flagOf(name)} ${JSON.stringify(value)}: expected a ${TYPE[decl.kind]}`,
      );
    if (decl.kind === 'release') checkReleaseId(value as string, flagOf(name));
  }
}
