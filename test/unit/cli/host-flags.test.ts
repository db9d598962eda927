import { afterEach, describe, expect, it, vi } from 'vitest';
import { runHostOp } from '../../../src/cli/commands/register-host.js';
import { ExitStatus } from '../../../src/errors.js';
import { minimal, tempDir, writeConfig } from '../config/temp-config.js';

afterEach(() => {
  vi.restoreAllMocks();
});

/**
 * A temp host's config, and what `deploy host` writes to stdout: were a flag
 * wrongly taken, a drain must not land in /run/handoff.
 */
async function tempHost(): Promise<{ config: string; written: string[] }> {
  const written: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  const dir = await tempDir();
  const config = await writeConfig(
    `${minimal}host:\n  root: ${dir}/root\n  state: ${dir}/state\n  lock: ${dir}/api.lock\n`,
  );
  return { config, written };
}

describe('deploy host flags', () => {
  it('refuse a --lease-ms longer than a timer can wait, as one bad-request result, exit 2', async () => {
    const { config, written } = await tempHost();
    const error = await runHostOp('drain', { config, by: 'test', leaseMs: '99999999999' }).catch(
      (e: unknown) => e,
    );
    expect(error).toEqual(new ExitStatus(2));
    expect(written.join('')).toContain('"code":"bad-request"');
    expect(written.join('')).toContain(
      '--lease-ms \\"99999999999\\": expected a whole number up to 2073600000',
    );
  });

  it('serves every operation of the table, lock-release too (deploy lock release)', async () => {
    const { config, written } = await tempHost();
    await runHostOp('lock-release', { config });
    expect(JSON.parse(written.join(''))).toEqual({
      type: 'result',
      ok: true,
      data: { released: false, reason: 'not locked' },
    });
  });
});
