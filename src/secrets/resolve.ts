import type { Config, SecretSource } from '../config/types.js';
import { ExitCode, HandoffError, formatProblem, messageOf } from '../errors.js';
import { secretMask } from '../safe-text.js';
import { fetchAwsSecret, fetchSsmParameter } from './aws.js';
import { fetchFromCommand } from './command.js';
import { SecretFetchError } from './fetch-error.js';

/** Fetches one source's value; throws SecretFetchError saying why not. */
export type SecretFetcher = (source: SecretSource, signal: AbortSignal) => Promise<string>;

/** One fetcher per kind of source; nothing else names a kind. */
export const fetchers: Readonly<Record<SecretSource['kind'], SecretFetcher>> = {
  aws_secret: (s, signal) =>
    fetchAwsSecret(s as Extract<SecretSource, { kind: 'aws_secret' }>, signal),
  ssm: (s, signal) => fetchSsmParameter(s as Extract<SecretSource, { kind: 'ssm' }>, signal),
  command: (s, signal) => fetchFromCommand(s as Extract<SecretSource, { kind: 'command' }>, signal),
};

/**
 * The environment a rollout reads `env.secret` from (rollout/release-env.ts):
 * the orchestrator's, with every entry that names a source fetched now, all
 * at once, each value masked the moment it arrives. Fetched once per
 * command, before anything changes on a host; any failure stops the command
 * with one line per entry naming it and why (never a value): exit 2 when a
 * secret is missing, 3 when access is denied or its store unreachable.
 */
export async function resolveSecrets(
  config: Config,
  environment: Readonly<Record<string, string | undefined>>,
  options: {
    signal?: AbortSignal;
    fetch?: Partial<Record<SecretSource['kind'], SecretFetcher>>;
  } = {},
): Promise<Readonly<Record<string, string | undefined>>> {
  const sources = Object.entries(config.env.sources ?? {});
  if (sources.length === 0) return environment;
  const signal = options.signal ?? new AbortController().signal;
  const answers = await Promise.allSettled(
    sources.map(async ([, source]) => {
      const fetch = options.fetch?.[source.kind] ?? fetchers[source.kind];
      const value = await fetch(source, signal);
      secretMask.add(value);
      return value;
    }),
  );
  const fetched: Record<string, string> = {};
  const problems: { path: string; message: string; blocked: boolean }[] = [];
  answers.forEach((answer, i) => {
    const name = sources[i]![0];
    if (answer.status === 'fulfilled') fetched[name] = answer.value;
    else problems.push(problemOf(config, name, answer.reason));
  });
  if (problems.length > 0) {
    const code = problems.some((p) => p.blocked) ? ExitCode.blocked : ExitCode.usage;
    throw new HandoffError(problems.map(formatProblem).join('\n'), code);
  }
  return { ...environment, ...fetched };
}

function problemOf(config: Config, name: string, reason: unknown) {
  const path = `env.secret[${config.env.secret.indexOf(name)}]`;
  if (reason instanceof SecretFetchError)
    return { path, message: `${name}: ${reason.message}`, blocked: reason.kind === 'blocked' };
  return { path, message: `${name}: ${messageOf(reason)}`, blocked: true };
}
