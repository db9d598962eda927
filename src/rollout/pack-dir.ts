import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UsageError } from '../errors.js';

const run = promisify(execFile);

/**
 * A directory as a .tar.gz, by GNU tar: `--sort=name`, owners as 0 (the host
 * extracts as its own user anyway), and gzip fed through a pipe writes no
 * time, so the same files with the same times give the same bytes, hence the
 * same sha256, and a second rollout of an unchanged directory uploads nothing.
 * (A rebuild that rewrites the files gives new times: it is shipped again.)
 */
export async function packDirectory(dir: string, out: string, flag = '--artifact'): Promise<void> {
  try {
    await run(
      'tar',
      ['-czf', out, '--sort=name', '--owner=0', '--group=0', '--numeric-owner', '-C', dir, '.'],
      { maxBuffer: 1024 * 1024 },
    );
  } catch (error) {
    const e = error as { stderr?: string; message?: string };
    const why = e.stderr?.trim().split('\n')[0] || (e.message ?? 'no reason given');
    const gnu = /unrecognized|not supported|invalid option|unknown option/i.test(why)
      ? '; packing a directory needs GNU tar (install it, or pass a .tar.gz)'
      : '';
    throw new UsageError(`${flag} ${dir}: tar could not pack it (${why})${gnu}`);
  }
}
