import type { Command } from 'commander';
import { ExitStatus } from '../../errors.js';
import { flagOf } from '../../protocol/args.js';
import { OPS } from '../../protocol/ops.js';
import type { ArgKind } from '../../protocol/spec.js';
import { addFlags, readFlags, type FlagSpec, type FlagValues } from '../flag-table.js';
import type { RegisterCommand } from './register.js';

type HostFlags = FlagValues & { readonly config: string };

const PLACEHOLDER: Readonly<Record<ArgKind, string | undefined>> = {
  text: '<text>',
  release: '<id>',
  ms: '<ms>',
  count: '<n>',
  switch: undefined,
};

/**
 * The flags of `deploy host <op>` (flag-table.ts): every argument of the
 * operation table (protocol/ops.ts) — which operation takes which is the
 * agent's to check — plus the config and the agent this deploy expects. An
 * agent operation, a process on the host for every step not in a session,
 * does not load commander.
 */
function hostFlags(): FlagSpec[] {
  const flags = new Map<string, FlagSpec>([
    [
      'config',
      {
        name: 'config',
        short: 'c',
        value: '<file>',
        help: 'the host config published by deploy setup',
        default: 'deploy.yml',
      },
    ],
    ['expect-agent', { name: 'expect-agent', value: '<sha256>' }],
  ]);
  for (const spec of Object.values(OPS))
    for (const [arg, decl] of Object.entries(spec.args as Record<string, { kind: ArgKind }>)) {
      const name = flagOf(arg).slice(2);
      const value = PLACEHOLDER[decl.kind];
      flags.set(name, { name, ...(value ? { value } : {}) });
    }
  return [...flags.values()];
}

const FLAGS = hostFlags();
/** what `deploy host` runs: every operation but the session's own words (`holder`) */
const ARGV_OPS = Object.entries(OPS).flatMap(([op, spec]) =>
  spec.channel === 'holder' ? [] : [op],
);

/** `deploy host <op>`: the agent protocol, driven over SSH by the orchestrator (JSON lines). */
export const registerHost: RegisterCommand = (program: Command) => {
  addFlags(
    program
      .command('host')
      .description('the host agent protocol (internal: driven by the orchestrator over SSH)')
      .argument('<op>', ARGV_OPS.join(' | ')),
    FLAGS,
  ).action((op: string, flags: HostFlags) => runHostOp(op, flags));
};

/** `deploy host <op> …` read without commander (flag-table.ts); undefined: commander's to answer. */
export function hostArgs(args: readonly string[]): { op: string; flags: HostFlags } | undefined {
  const read = readFlags(FLAGS, args, 1);
  const op = read?.operands[0];
  return read && op !== undefined ? { op, flags: read.values as HostFlags } : undefined;
}

export async function runHostOp(op: string, flags: HostFlags): Promise<void> {
  const [{ loadConfig }, { serveFlags }, { stdioAgentIO, readAll }, { systemClock }] =
    await Promise.all([
      import('../../config/load.js'),
      import('../../host/agent/server.js'),
      import('../agent-io.js'),
      import('../../clock.js'),
    ]);
  const code = await serveFlags(op, flags, {
    loadConfig: () => loadConfig(flags.config, { trustSeal: true }),
    clock: systemClock,
    io: stdioAgentIO(),
    self: process.argv[1] ?? '',
    readStdin: readAll,
  });
  if (code !== 0) throw new ExitStatus(code);
}
