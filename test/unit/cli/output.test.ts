import { afterEach, describe, expect, it, vi } from 'vitest';
import { stdioAgentIO } from '../../../src/cli/agent-io.js';
import { createOutput } from '../../../src/cli/output.js';
import { maskUrlPasswords } from '../../../src/safe-text.js';

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
