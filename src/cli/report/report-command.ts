import { readFile, writeFile } from 'node:fs/promises';
import { messageOf, UsageError } from '../../errors.js';
import { renderReport } from '../../report/page.js';
import { readReport } from '../../report/read.js';
import { maskUrlPasswords, secretMask } from '../../safe-text.js';
import { toStderr, toStdout } from '../stdio.js';

export interface ReportFlags {
  readonly output?: string;
  readonly release?: string;
  readonly host?: string;
}

async function readInput(file: string | undefined, stdin: () => Promise<string>): Promise<string> {
  if (file === undefined || file === '-') return stdin();
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read ${file}: ${messageOf(error)}; give a rollout's --json output`,
    );
  }
}

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY)
    throw new UsageError(
      "deploy report reads a rollout's --json output: give a file (deploy report rollout.ndjson -o report.html) or pipe it in",
    );
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `deploy report [FILE] [-o report.html]`: a rollout's --json stream (or an
 * audit) as one self-contained HTML page; to stdout without -o.
 */
export async function runReport(
  file: string | undefined,
  flags: ReportFlags,
  stdin: () => Promise<string> = readStdin,
): Promise<void> {
  const text = await readInput(file, stdin);
  const report = readReport(text, {
    name: file === undefined || file === '-' ? 'stdin' : file,
    ...(flags.release === undefined ? {} : { release: flags.release }),
    ...(flags.host === undefined ? {} : { host: flags.host }),
  });
  // a failed step's detail may quote output that carried a secret this process knows, or a
  // URL with its password (a stream written before masking, a host's own audit.jsonl)
  const html = maskUrlPasswords(secretMask.mask(renderReport(report)));
  if (flags.output === undefined) {
    toStdout(html);
    return;
  }
  try {
    await writeFile(flags.output, html);
  } catch (error) {
    throw new UsageError(`cannot write ${flags.output}: ${messageOf(error)}`);
  }
  const waves = report.waves.length;
  toStderr(
    `wrote ${flags.output}: release ${report.release}, ${report.hosts.length} host(s) in ${waves} wave(s), from ${report.source}\n`,
  );
}
