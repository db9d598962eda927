import type { Command } from 'commander';
import { MAX_DURATION_MS } from '../../config/duration.js';
import { ExitStatus, UsageError, messageOf } from '../../errors.js';
import { addFlags, readFlags, type FlagSpec, type FlagValues } from '../flag-table.js';
import type { RegisterCommand } from './register.js';

const OPS = [
  'hello',
  'lock-hold',
  'drain',
  'undrain',
  'publish',
  'switch',
  'start',
  'stop',
  'verify',
  'status',
  'audit-read',
  'artifact',
  'releases',
  'prune',
] as const;

type HostFlags = FlagValues & { readonly config: string };

/**
 * The flags of `deploy host <op>` (flag-table.ts): an agent operation — a
 * process on the host for every step that is not in a session — does not
 * load commander.
 */
const FLAGS: readonly FlagSpec[] = [
  {
    name: 'config',
    short: 'c',
    value: '<file>',
    help: 'the host config published by deploy setup',
    default: 'deploy.yml',
  },
  { name: 'release', value: '<id>' },
  { name: 'by', value: '<who>' },
  { name: 'lease-ms', value: '<ms>' },
  { name: 'what', value: '<what>' },
  { name: 'message', value: '<text>' },
  { name: 'successes', value: '<n>' },
  { name: 'timeout-ms', value: '<ms>' },
  { name: 'expect-agent', value: '<sha256>' },
  { name: 'services', value: '<a,b>' },
  { name: 'if-stopped' },
  { name: 'release-optional' },
  { name: 'allow-draining' },
  { name: 'force' },
  { name: 'defer' },
  { name: 'since', value: '<iso>' },
  { name: 'sha256', value: '<hex>' },
  { name: 'file', value: '<path>' },
  { name: 'keep', value: '<n>' },
];

/** A whole number up to `max`; the `-ms` flags stop at what a timer can wait (duration.ts). */
function int(
  value: string | boolean | undefined,
  flag: string,
  max = MAX_DURATION_MS,
): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value) || Number(value) > max)
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a whole number up to ${max}`);
  return Number(value);
}

/** `deploy host <op>`: the agent protocol, driven over SSH by the orchestrator (JSON lines). */
export const registerHost: RegisterCommand = (program: Command) => {
  addFlags(
    program
      .command('host')
      .description('the host agent protocol (internal: driven by the orchestrator over SSH)')
      .argument('<op>', OPS.join(' | ')),
    FLAGS,
  ).action((op: string, flags: HostFlags) => runHostOp(op, flags));
};

/** `deploy host <op> …` read without commander (flag-table.ts); undefined: commander's to answer. */
export function hostArgs(args: readonly string[]): { op: string; flags: HostFlags } | undefined {
  const read = readFlags(FLAGS, args, 1);
  const op = read?.operands[0];
  return read && op !== undefined ? { op, flags: read.values as HostFlags } : undefined;
}

const text = (value: string | boolean | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

export async function runHostOp(op: string, flags: HostFlags): Promise<void> {
  const [{ loadConfig }, { serveAgentOp }, { stdioAgentIO, readAll }, { systemClock }] =
    await Promise.all([
      import('../../config/load.js'),
      import('../../host/agent/server.js'),
      import('../agent-io.js'),
      import('../../clock.js'),
    ]);
  const io = stdioAgentIO();
  const expected = text(flags.expectAgent);
  if (expected !== undefined) {
    // first of all: another agent must not even read the config or the flags
    const { assertIdentity } = await import('../../host/agent/server.js');
    const { errorInfo } = await import('../../host/agent/error-info.js');
    try {
      await assertIdentity(expected, process.argv[1] ?? '');
    } catch (error) {
      const info = errorInfo(error);
      io.send({ type: 'result', ok: false, error: info });
      throw new ExitStatus(info.exit);
    }
  }
  if (!(OPS as readonly string[]).includes(op)) {
    io.send({
      type: 'result',
      ok: false,
      error: { code: 'bad-request', message: `unknown operation ${op}`, exit: 2 },
    });
    throw new ExitStatus(2);
  }
  let code: number;
  try {
    const config = await loadConfig(flags.config, { trustSeal: true });
    const args = {
      release: text(flags.release),
      by: text(flags.by),
      leaseMs: int(flags.leaseMs, '--lease-ms'),
      what: text(flags.what),
      message: text(flags.message),
      successes: int(flags.successes, '--successes', 1_000_000),
      timeoutMs: int(flags.timeoutMs, '--timeout-ms'),
      allowDraining: flags.allowDraining === true,
      force: flags.force === true,
      defer: flags.defer === true,
      services: text(flags.services),
      ifStopped: flags.ifStopped === true,
      releaseOptional: flags.releaseOptional === true,
      since: text(flags.since),
      sha256: text(flags.sha256),
      file: text(flags.file),
      keep: int(flags.keep, '--keep', 1_000_000),
    };
    code = await serveAgentOp(op as (typeof OPS)[number], args, {
      config,
      clock: systemClock,
      io,
      self: process.argv[1] ?? '',
      readStdin: readAll,
    });
  } catch (error) {
    const message = messageOf(error);
    io.send({ type: 'result', ok: false, error: { code: 'bad-config', message, exit: 2 } });
    code = 2;
  }
  if (code !== 0) throw new ExitStatus(code);
}
