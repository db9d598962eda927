import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { minimal, tempDir } from './temp-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `deploy check -c FILE` as a process: what reaches the terminal is the thing under test */
async function check(name: string, text: string) {
  const file = path.join(await tempDir(), name);
  await writeFile(file, text);
  const run = await execa(
    'node',
    ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), 'check', '-c', file],
    { cwd: root, reject: false },
  );
  return { code: run.exitCode, stderr: run.stderr.replaceAll(file, 'FILE') };
}

describe('what deploy prints about a bad file', () => {
  it('never echoes a line of a file that is not a deploy.yml (check -c .env)', async () => {
    const { code, stderr } = await check('.env', 'DB_PASSWORD=hunter2\nAPI_KEY=abc123\n');
    expect(code).toBe(2);
    expect(stderr).toBe(
      'deploy: the file holds a string, not a mapping of deploy.yml keys; pass -c with the deploy.yml (FILE:1:1)',
    );
  });

  it('escapes an unknown key holding a newline and an ESC sequence', async () => {
    const { code, stderr } = await check('deploy.yml', `${minimal}"evil\\nkey\\e[2J": 1\n`);
    expect(code).toBe(2);
    expect(stderr).not.toContain('\u001b');
    expect(stderr.split('\n')).toEqual([
      'deploy: ["evil\\nkey\\u001b[2J"]: unknown key (FILE:19:1)',
    ]);
  });

  it('masks the password of a URL it quotes', async () => {
    const text = minimal.replace('interval: 5s', 'interval: "http://admin:s3cret@10.0.0.1/"');
    const { code, stderr } = await check('deploy.yml', text);
    expect(code).toBe(2);
    expect(stderr).toContain('http://admin:***@10.0.0.1/');
    expect(stderr).not.toContain('s3cret');
  });
});
