import { afterEach, describe, expect, it, vi } from 'vitest';
import { runHostOp } from '../../../src/cli/commands/host.js';
import { ExitStatus } from '../../../src/errors.js';
import { minimal, tempDir, writeConfig } from '../config/temp-config.js';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('deploy host flags', () => {
  it('refuse a --lease-ms longer than a timer can wait, as one bad-request result, exit 2', async () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    // a temp host: were the flag taken, the drain must not land in /run/handoff
    const dir = await tempDir();
    const config = await writeConfig(
      `${minimal}host:\n  root: ${dir}/root\n  state: ${dir}/state\n  lock: ${dir}/api.lock\n`,
    );
    const error = await runHostOp('drain', { config, by: 'test', leaseMs: '99999999999' }).catch(
      (e: unknown) => e,
    );
    expect(error).toEqual(new ExitStatus(2));
    expect(written.join('')).toContain(
      '--lease-ms \\"99999999999\\": expected a whole number up to 2073600000',
    );
  });
});
