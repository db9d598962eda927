import { UsageError } from '../../errors.js';

/**
 * `deploy exec web-1 web-2 -- ls -la`: commander hands every word after the
 * command as one list; the raw argv says where `--` split the hosts from the
 * command. Without a `--`, nothing is taken for a command.
 */
export function splitCommand(
  words: readonly string[],
  rawArgv: readonly string[],
): { hosts: string[]; command: string[] } {
  const dashes = rawArgv.indexOf('--');
  if (dashes === -1)
    throw new UsageError("put the command after '--': deploy exec web-1 web-2 -- CMD ARGS…");
  const count = rawArgv.length - dashes - 1;
  if (count === 0 || count >= words.length + 1)
    throw new UsageError(
      "give the hosts before '--' and the command after it: deploy exec web-1 -- CMD ARGS…",
    );
  return {
    hosts: words.slice(0, words.length - count),
    command: words.slice(words.length - count),
  };
}
