import type { EnvConfig, SecretSource } from './types.js';

/**
 * `env.secret` entries → the names the hosts see and, for the orchestrator,
 * where each value comes from. No zod here: normalize.ts, which every tick
 * loads, imports this.
 */

/** an `env.secret` entry as the schema (secret-schema.ts) parses it */
type RawSecret =
  | string
  | {
      readonly name: string;
      readonly aws_secret?: string | undefined;
      readonly key?: string | undefined;
      readonly ssm?: string | undefined;
      readonly region?: string | undefined;
      readonly command?: string | readonly string[] | undefined;
      readonly timeout?: number | undefined;
    };

/** the default `command` timeout */
export const COMMAND_TIMEOUT_MS = 30_000;

export const secretName = (entry: RawSecret): string =>
  typeof entry === 'string' ? entry : entry.name;

/** Where an entry's value comes from; undefined: the environment. */
export function secretSource(entry: RawSecret): SecretSource | undefined {
  if (typeof entry === 'string') return undefined;
  const region = entry.region === undefined ? {} : { region: entry.region };
  if (entry.aws_secret !== undefined)
    return {
      kind: 'aws_secret',
      secretId: entry.aws_secret,
      ...(entry.key === undefined ? {} : { key: entry.key }),
      ...region,
    };
  if (entry.ssm !== undefined) return { kind: 'ssm', parameter: entry.ssm, ...region };
  if (entry.command !== undefined)
    return {
      kind: 'command',
      argv: typeof entry.command === 'string' ? entry.command.trim().split(/\s+/) : entry.command,
      timeout: entry.timeout ?? COMMAND_TIMEOUT_MS,
    };
  return undefined;
}

/** `env:` as the Config holds it: secret names, and the sources of those not in the environment. */
export function envConfig(raw: {
  readonly clear: Readonly<Record<string, string>>;
  readonly secret: readonly RawSecret[];
}): EnvConfig {
  const sources: Record<string, SecretSource> = {};
  for (const entry of raw.secret) {
    const source = secretSource(entry);
    if (source) sources[secretName(entry)] = source;
  }
  return {
    clear: { ...raw.clear },
    secret: raw.secret.map(secretName),
    ...(Object.keys(sources).length > 0 ? { sources } : {}),
  };
}
