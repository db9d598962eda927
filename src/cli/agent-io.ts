import { createInterface, type Interface } from 'node:readline';
import type { AgentIO } from '../host/agent/io.js';
import { encodeLine } from '../protocol/lines.js';
import { maskUrlPasswords, secretMask } from '../safe-text.js';

/**
 * The agent's stdout carries protocol lines only; everything else goes to
 * stderr. A URL's password (a check URL in an error) is masked here too: the
 * lines reach the orchestrator's CI log, or a terminal when run by hand.
 */
export function stdioAgentIO(): AgentIO {
  let input: Interface | undefined;
  return {
    send: (line) =>
      void process.stdout.write(maskUrlPasswords(encodeLine(secretMask.maskDeep(line)))),
    // created on first use: `publish` reads stdin whole instead
    get input() {
      input ??= createInterface({ input: process.stdin, crlfDelay: Infinity });
      return input;
    },
    endInput: () => {
      input?.close();
      process.stdin.destroy();
    },
  };
}

export async function readAll(): Promise<string> {
  if (process.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
