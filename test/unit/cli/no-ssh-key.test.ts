import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { minimal, tempDir } from '../config/temp-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const NO_KEY =
  'deploy: no ssh.identity_file is set and no ssh-agent is running (SSH_AUTH_SOCK is empty): set identity_file in deploy.yml or start an agent and ssh-add your key';

describe('no SSH key and no agent (issue 34: one cause, one exit code)', () => {
  it.each([
    [['status']],
    [['rollout', '--release', 'r1', '--dry-run']],
    [['rollout', '--release', 'r1']],
    [['drain', 'web-1']],
    [['releases']],
    [['check', '--live']],
  ])('%j: exit 2 with the one line, before any host', async (args) => {
    const dir = await tempDir();
    const file = path.join(dir, 'deploy.yml');
    await writeFile(file, minimal);
    await writeFile(path.join(dir, 'compose.yml'), 'services: {}\n');
    const { SSH_AUTH_SOCK: _agent, ...env } = process.env;
    const run = await execa(
      'node',
      ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args, '-c', file],
      { cwd: root, reject: false, env: { ...env, HOME: dir }, extendEnv: false },
    );
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr.split('\n').at(-1)).toBe(NO_KEY);
  });
});
