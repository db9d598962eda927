import { describe, expect, it } from 'vitest';
import { VERSION } from '../../../src/version.js';
import { deploy, ndjson } from './cli-process.js';

describe('deploy with no command, and deploy --version', () => {
  it('bare deploy prints the help on stderr and exits 2', async () => {
    const r = await deploy();
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: deploy [options] [command]');
    expect(r.stderr).toContain('rollout');
  });

  it.each([['--version'], ['-V']])('%s prints the version alone and exits 0', async (flag) => {
    const r = await deploy(flag);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(VERSION);
  });

  it('--version --json is a result line with the version', async () => {
    const r = await deploy('--version', '--json');
    expect(r.exitCode).toBe(0);
    expect(ndjson(r.stdout)).toEqual([
      { event: 'result', schema_version: 1, ok: true, exit_code: 0, version: VERSION },
    ]);
  });
});
