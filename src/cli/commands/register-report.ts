import type { Command } from 'commander';
import type { RegisterCommand } from './register.js';

/** `deploy report [FILE] [-o FILE]`: a rollout as one self-contained HTML page (docs/report.md). */
export const registerReport: RegisterCommand = (program: Command) => {
  program
    .command('report')
    .description(
      "draw a rollout's --json output (or deploy audit --json, or a host's audit.jsonl) as one HTML page",
    )
    .argument('[file]', "the rollout's --json output; stdin when absent or -")
    .option('-o, --output <file>', 'where to write the page (default: stdout)')
    .option('--release <id>', 'from an audit: the release to draw (default: the newest)')
    .option('--host <name>', "a host's raw audit.jsonl: the host it came from")
    .action(
      async (
        file: string | undefined,
        options: { output?: string; release?: string; host?: string },
      ) => {
        const { runReport } = await import('../report/report-command.js');
        await runReport(file, options);
      },
    );
};
