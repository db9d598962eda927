import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { UsageError } from '../errors.js';

const run = promisify(execFile);

/**
 * A directory as a .tar.gz, by the system tar: `--sort=name`, and gzip fed
 * through a pipe writes no time, so the same files give the same bytes, hence
 * the same sha256, and a second rollout of an unchanged build uploads nothing.
 */
export async function packDirectory(dir: string, out: string, flag = '--artifact'): Promise<void> {
  try {
    await run('tar', ['-czf', out, '--sort=name', '-C', dir, '.'], { maxBuffer: 1024 * 1024 });
  } catch (error) {
    const e = error as { stderr?: string; message?: string };
    const why = e.stderr?.trim().split('\n')[0] || (e.message ?? 'no reason given');
    throw new UsageError(`${flag} ${dir}: tar could not pack it (${why})`);
  }
}
