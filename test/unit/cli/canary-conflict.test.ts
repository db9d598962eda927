import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

describe('--no-canary with --canary (issue 34)', () => {
  it.each([[['--no-canary', '--canary', '1']], [['--canary', '1', '--no-canary']]])(
    '%j contradict: one line, exit 2, before deploy.yml is read',
    async (flags) => {
      const run = await execa(
        'node',
        [
          '--import',
          'tsx',
          path.join(root, 'src/cli/main.ts'),
          'rollout',
          '--release',
          'r1',
          '-c',
          '/nonexistent/deploy.yml',
          ...flags,
        ],
        { cwd: root, reject: false },
      );
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toBe(
        'deploy: --no-canary and --canary contradict each other: give one of them',
      );
    },
  );
});
