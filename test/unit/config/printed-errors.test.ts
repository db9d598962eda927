import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { stdioAgentIO } from '../../../src/cli/agent-io.js';
import { createOutput } from '../../../src/cli/output.js';
import { maskUrlPasswords } from '../../../src/safe-text.js';
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

describe('the output', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('masks URL passwords and escapes control characters in events, human and JSON', () => {
    const written: string[] = [];
    const capture = (chunk: string | Uint8Array): boolean => {
      written.push(String(chunk));
      return true;
    };
    vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const message = 'GET https://ops:pa@ss@10.0.0.5/health failed\u001b[2J';
    createOutput({ json: false }).emit({ level: 'warn', event: 'x', message });
    createOutput({ json: true }).emit({ level: 'warn', event: 'x', message });
    expect(written[0]).toBe('WARN GET https://ops:***@10.0.0.5/health failed\\u001b[2J\n');
    expect(written[1]).toContain('https://ops:***@10.0.0.5/health');
    expect(written.join('')).not.toContain('pa@ss');
    expect(written.join('')).not.toContain('\u001b');
  });

  it('masks URL passwords in the agent’s protocol lines too', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    stdioAgentIO().send({
      type: 'result',
      ok: false,
      error: { code: 'failed', message: 'http://ops:hunter2@10.0.0.5/health refused', exit: 1 },
    });
    expect(written.join('')).toContain('http://ops:***@10.0.0.5/health');
    expect(written.join('')).not.toContain('hunter2');
  });

  it('leaves URLs without a password alone', () => {
    expect(maskUrlPasswords('http://127.0.0.1:8080/health and http://user@h/')).toBe(
      'http://127.0.0.1:8080/health and http://user@h/',
    );
  });
});
