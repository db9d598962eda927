import type { Command } from 'commander';
import type { SettingChange } from '../../balancer/infra-diff.js';
import type { InfraResult } from '../../balancer/infra.js';
import { addConfigFlags, destinationOf, type ConfigFlags } from '../config-flag.js';
import type { RegisterCommand } from './register.js';

/** `deploy infra apply [--dry-run]`: the balancer's health-check settings ← deploy.yml. */
export const registerInfra: RegisterCommand = (program: Command) => {
  const infra = program.command('infra').description("the balancer's own settings");
  addConfigFlags(
    infra
      .command('apply')
      .description("make the balancer's health-check settings match deploy.yml"),
    'deploy.yml to read',
  )
    .option('--dry-run', 'print what would change and change nothing')
    .option('--json', 'machine-readable output')
    .action(async (options: ConfigFlags & { dryRun?: boolean; json?: boolean }) => {
      const [{ loadConfig }, { infraApply }, { formatValue }, { createOutput }, { snakeKey }] =
        await Promise.all([
          import('../../config/load.js'),
          import('../../balancer/infra.js'),
          import('../../balancer/infra-diff.js'),
          import('../output.js'),
          import('../json-keys.js'),
        ]);
      const output = createOutput({ json: options.json ?? false });
      const config = await loadConfig(options.config, { log: output, ...destinationOf(options) });
      const dryRun = options.dryRun ?? false;
      const { systemClock } = await import('../../clock.js');
      const results = await infraApply(
        config,
        { dryRun },
        { clock: systemClock, log: output, ssh: config.ssh },
      );
      const line = (c: SettingChange): string =>
        `  ${c.setting}: ${formatValue(c.setting, c.current)} -> ${formatValue(c.setting, c.desired)}${c.action === 'manual' ? '  (not changed by handoff)' : ''}`;
      // one balancer is named by its kind, as before; several by their names
      const label = (r: InfraResult): string => (results.length > 1 ? r.name : r.kind);
      for (const result of results) {
        if (result.changes.length === 0) {
          output.text(`${label(result)}: the health-check settings already match ${config.source}`);
          continue;
        }
        const verb = result.applied ? 'changed' : dryRun ? 'would change' : 'differs';
        output.text([`${label(result)}: ${verb}:`, ...result.changes.map(line)].join('\n'));
        if (result.snippet) output.text(`${result.snippet.title}:\n${result.snippet.text}`);
      }
      const json = (r: InfraResult) => ({
        name: r.name,
        kind: r.kind,
        applied: r.applied,
        // a setting is named as deploy.yml names it
        changes: r.changes.map((c) => ({ ...c, setting: snakeKey(c.setting) })),
        ...(r.snippet ? { snippet: r.snippet.text } : {}),
      });
      const [first] = results;
      output.result(true, {
        // the first balancer's keys at the top, as with one balancer
        ...(first ? json(first) : {}),
        dryRun,
        balancers: results.map(json),
      });
    });
};
