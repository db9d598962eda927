import type { Command } from 'commander';
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

interface HostFlags {
  readonly config: string;
  readonly release?: string;
  readonly by?: string;
  readonly leaseMs?: string;
  readonly what?: string;
  readonly message?: string;
  readonly successes?: string;
  readonly timeoutMs?: string;
  readonly allowDraining?: boolean;
  readonly force?: boolean;
  readonly defer?: boolean;
}

function int(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a whole number`);
  return Number(value);
}

/** `deploy host <op>`: the agent protocol, driven over SSH by the orchestrator (JSON lines). */
export const registerHost: RegisterCommand = (program: Command) => {
  program
    .command('host')
    .description('the host agent protocol (internal: driven by the orchestrator over SSH)')
    .argument('<op>', OPS.join(' | '))
    .option('-c, --config <file>', 'the host config published by deploy setup', 'deploy.yml')
    .option('--release <id>')
    .option('--by <who>')
    .option('--lease-ms <ms>')
    .option('--what <what>')
    .option('--message <text>')
    .option('--successes <n>')
    .option('--timeout-ms <ms>')
    .option('--allow-draining')
    .option('--force')
    .option('--defer')
    .action(async (op: string, flags: HostFlags) => {
      const [{ loadConfig }, { serveAgentOp }, { stdioAgentIO, readAll }, { systemClock }] =
        await Promise.all([
          import('../../config/read.js'),
          import('../../host/agent/server.js'),
          import('../agent-io.js'),
          import('../../clock.js'),
        ]);
      const io = stdioAgentIO();
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
          release: flags.release,
          by: flags.by,
          leaseMs: int(flags.leaseMs, '--lease-ms'),
          what: flags.what,
          message: flags.message,
          successes: int(flags.successes, '--successes'),
          timeoutMs: int(flags.timeoutMs, '--timeout-ms'),
          allowDraining: flags.allowDraining,
          force: flags.force,
          defer: flags.defer,
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
    });
};
