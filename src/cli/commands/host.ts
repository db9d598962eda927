import type { Command } from 'commander';
import { parseArgs } from 'node:util';
import { ExitStatus, UsageError } from '../../errors.js';
import type { RegisterCommand } from './index.js';

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
] as const;

type HostFlags = Readonly<Record<string, string | boolean | undefined>> & {
  readonly config: string;
};

/**
 * The flags of `deploy host <op>`, declared once: commander shows them, and
 * `hostArgs` reads the orchestrator's argv with node's parseArgs, so an agent
 * operation — a process on the host for every step that is not in a session —
 * does not load commander.
 */
const FLAGS: readonly { name: string; value?: string; short?: string }[] = [
  { name: 'config', short: 'c', value: '<file>' },
  { name: 'release', value: '<id>' },
  { name: 'by', value: '<who>' },
  { name: 'lease-ms', value: '<ms>' },
  { name: 'what', value: '<what>' },
  { name: 'message', value: '<text>' },
  { name: 'successes', value: '<n>' },
  { name: 'timeout-ms', value: '<ms>' },
  { name: 'expect-agent', value: '<sha256>' },
  { name: 'allow-draining' },
  { name: 'force' },
  { name: 'defer' },
];
const DEFAULT_CONFIG = 'deploy.yml';

function int(value: string | boolean | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !/^\d+$/.test(value))
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a whole number`);
  return Number(value);
}

const camel = (name: string): string =>
  name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** `deploy host <op>`: the agent protocol, driven over SSH by the orchestrator (JSON lines). */
export const registerHost: RegisterCommand = (program: Command) => {
  const command = program
    .command('host')
    .description('the host agent protocol (internal: driven by the orchestrator over SSH)')
    .argument('<op>', OPS.join(' | '));
  for (const f of FLAGS) {
    const flag = `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.value ? ` ${f.value}` : ''}`;
    if (f.name === 'config')
      command.option(flag, 'the host config published by deploy setup', DEFAULT_CONFIG);
    else command.option(flag);
  }
  command.action((op: string, flags: HostFlags) => runHostOp(op, flags));
};

/**
 * `deploy host <op> …` as parseArgs reads it, the way commander would;
 * undefined for anything else (--help, an unknown flag), which main hands to
 * commander for its usual help or error.
 */
export function hostArgs(args: readonly string[]): { op: string; flags: HostFlags } | undefined {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: true,
      options: Object.fromEntries(
        FLAGS.map((f) => [
          f.name,
          {
            type: f.value ? ('string' as const) : ('boolean' as const),
            ...(f.short ? { short: f.short } : {}),
          },
        ]),
      ),
    });
    const [op, ...rest] = positionals;
    if (op === undefined || rest.length > 0) return undefined;
    const flags = Object.fromEntries(Object.entries(values).map(([k, v]) => [camel(k), v]));
    return { op, flags: { ...flags, config: values.config ?? DEFAULT_CONFIG } as HostFlags };
  } catch {
    return undefined;
  }
}

const text = (value: string | boolean | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

export async function runHostOp(op: string, flags: HostFlags): Promise<void> {
  const [{ loadConfig }, { serveAgentOp }, { stdioAgentIO, readAll }, { systemClock }] =
    await Promise.all([
      import('../../config/read.js'),
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
    const config = await loadConfig(flags.config);
    const args = {
      release: text(flags.release),
      by: text(flags.by),
      leaseMs: int(flags.leaseMs, '--lease-ms'),
      what: text(flags.what),
      message: text(flags.message),
      successes: int(flags.successes, '--successes'),
      timeoutMs: int(flags.timeoutMs, '--timeout-ms'),
      allowDraining: flags.allowDraining === true,
      force: flags.force === true,
      defer: flags.defer === true,
    };
    code = await serveAgentOp(op as (typeof OPS)[number], args, {
      config,
      clock: systemClock,
      io,
      self: process.argv[1] ?? '',
      readStdin: readAll,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.send({ type: 'result', ok: false, error: { code: 'bad-config', message, exit: 2 } });
    code = 2;
  }
  if (code !== 0) throw new ExitStatus(code);
}
