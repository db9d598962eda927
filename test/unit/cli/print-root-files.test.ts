import { describe, expect, it } from 'vitest';
import { printRootFiles } from '../../../src/cli/fleet/setup-command.js';
import { UsageError } from '../../../src/errors.js';
import { minimal, writeConfig } from '../config/temp-config.js';

/** `deploy setup --print-sudoers` / `--print-cron`: bad flags are usage errors, no host contacted. */
const sudoConfig = () =>
  writeConfig(minimal.replace('  user: deploy\n', '  user: deploy\n  sudo: true\n'));

describe('deploy setup --print-sudoers / --print-cron', () => {
  it('refuses --print-sudoers when ssh.sudo is off: setup runs nothing through sudo then', async () => {
    await expect(
      printRootFiles({ config: await writeConfig(minimal), printSudoers: true }),
    ).rejects.toThrow(/^--print-sudoers: ssh\.sudo is off in deploy\.yml/);
  });

  it('refuses a --node a cron PATH line cannot carry', async () => {
    const failure = await printRootFiles({
      config: await sudoConfig(),
      printCron: true,
      node: 'bad path',
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(UsageError);
    expect((failure as Error).message).toMatch(
      /^--node "bad path": expected the absolute path of a node binary/,
    );
  });

  it('refuses both at once', async () => {
    await expect(
      printRootFiles({ config: await sudoConfig(), printCron: true, printSudoers: true }),
    ).rejects.toThrow('--print-sudoers and --print-cron: give one of them');
  });
});
