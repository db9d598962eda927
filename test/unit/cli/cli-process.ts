import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** the real CLI, as a process, run from source */
export function deploy(...args: string[]) {
  return execa('node', ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args], {
    cwd: root,
    reject: false,
  });
}

/** every stdout line parsed as JSON: a line that is not JSON fails the test */
export function ndjson(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
