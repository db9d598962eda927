import { execa } from 'execa';
import { UsageError } from '../errors.js';

/**
 * A directory as a .tar.gz, by the system tar: `--sort=name` and gzip's
 * header without a time make the same files the same bytes, hence the same
 * sha256 (checked), so a second rollout of an unchanged directory uploads nothing.
 */
export async function packDirectory(dir: string, out: string): Promise<void> {
  const r = await execa('tar', ['-czf', out, '--sort=name', '-C', dir, '.'], { reject: false });
  if (r.exitCode !== 0)
    throw new UsageError(
      `--artifact ${dir}: tar could not pack it (${String(r.stderr).trim().split('\n')[0] ?? `exit ${r.exitCode}`})`,
    );
}
