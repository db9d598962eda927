import type { Command } from 'commander';
import { parseArgs } from 'node:util';

/**
 * One flag of a command that runs on hosts over and over (`deploy watchdog`,
 * `deploy host`), declared once: commander shows it in help and answers
 * mistakes, and `readFlags` reads the usual argv with node's parseArgs, so
 * those processes never load commander (main.ts).
 */
export interface FlagSpec {
  /** kebab-case, as typed: `lease-ms` */
  readonly name: string;
  readonly short?: string;
  /** the value's placeholder (`<file>`); a flag without one is a switch */
  readonly value?: string;
  readonly help?: string;
  readonly default?: string;
}

export type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

export function addFlags(command: Command, flags: readonly FlagSpec[]): Command {
  for (const f of flags) {
    const flag = `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.value ? ` ${f.value}` : ''}`;
    command.option(flag, f.help ?? '', f.default);
  }
  return command;
}

const camel = (name: string): string =>
  name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * `args` as commander would read them with these flags — camelCase keys,
 * defaults filled in — and exactly `positionals` operands; undefined for
 * anything else (--help, an unknown flag, a missing operand), which is then
 * commander's to answer as usual.
 */
export function readFlags(
  flags: readonly FlagSpec[],
  args: readonly string[],
  positionals: number,
): { values: FlagValues; operands: string[] } | undefined {
  try {
    const parsed = parseArgs({
      args: [...args],
      strict: true,
      allowPositionals: positionals > 0,
      options: Object.fromEntries(
        flags.map((f) => [
          f.name,
          {
            type: f.value ? ('string' as const) : ('boolean' as const),
            ...(f.short ? { short: f.short } : {}),
          },
        ]),
      ),
    });
    if (parsed.positionals.length !== positionals) return undefined;
    const values: Record<string, string | boolean | undefined> = {};
    for (const f of flags) values[camel(f.name)] = parsed.values[f.name] ?? f.default;
    for (const key of Object.keys(values)) if (values[key] === undefined) delete values[key];
    return { values, operands: parsed.positionals };
  } catch {
    return undefined;
  }
}
