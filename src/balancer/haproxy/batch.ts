import type { SocketAddress } from './address.js';
import { runCommand, type RuntimeApiOptions } from './runtime-api.js';

/**
 * Several commands on one connection: the runtime API runs `;`-separated
 * commands in order and writes their answers one after the other. A read on
 * every host's path (a receipt's window, the states polls) pays for one
 * connection instead of one per command.
 */
export async function runCommands<const C extends readonly string[]>(
  address: SocketAddress,
  commands: C,
  options: RuntimeApiOptions = {},
): Promise<{ readonly [K in keyof C]: string }> {
  const answer = await runCommand(address, commands.join(';'), options);
  // one answer per command, in the commands' order (splitAnswers gives exactly that many)
  return splitAnswers(answer, commands.length) as { readonly [K in keyof C]: string };
}

/**
 * `count` answers out of what the runtime API wrote for as many commands:
 * haproxy ends each answer with an empty line (an empty answer is that line
 * alone), so each is what comes before it, with its last line's LF. An answer
 * cut short (a peer that is not haproxy, a process that went away) leaves
 * every later command with what remained, the whole answer if nothing was
 * split, for an error to quote.
 */
export function splitAnswers(answer: string, count: number): string[] {
  const answers: string[] = [];
  let at = 0;
  while (answers.length < count) {
    if (answer.startsWith('\n', at)) {
      answers.push('');
      at += 1;
      continue;
    }
    const end = answer.indexOf('\n\n', at);
    if (end < 0) break;
    answers.push(answer.slice(at, end + 1));
    at = end + 2;
  }
  const rest = answer.slice(at);
  while (answers.length < count) answers.push(rest);
  return answers;
}
