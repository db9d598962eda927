import { stat } from 'node:fs/promises';
import { OperationError } from '../../errors.js';
import { releaseDir } from '../layout.js';

export async function assertPublished(root: string, release: string): Promise<void> {
  const dir = releaseDir(root, release);
  const isDir = await stat(dir).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir) {
    throw new OperationError(
      `release ${release} is not published at ${dir}; publish it before preparing it`,
    );
  }
}

/** The last line of a command's stderr, cut short: enough to say why, never a dump. */
export function lastLine(text: string): string {
  const line = text.trim().split('\n').at(-1)?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}
