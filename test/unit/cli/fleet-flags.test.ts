import { describe, expect, it } from 'vitest';
import { open } from '../../../src/cli/open-fleet.js';
import { runRollout } from '../../../src/cli/rollout/rollout-command.js';
import { UsageError } from '../../../src/errors.js';
import { minimal, writeConfig } from '../config/temp-config.js';

/** deploy rollout's flags, as commander hands them over, with a real deploy.yml of 2 hosts */
async function rollout(flags: { hosts?: string; batch?: string }) {
  const config = await writeConfig(minimal);
  return runRollout({ release: 'r1', config, rollback: true, ...flags });
}

describe('flags that narrow a rollout', () => {
  it('refuse --hosts that names no host instead of deploying the whole fleet', async () => {
    for (const hosts of ['', ',', ' , '])
      await expect(rollout({ hosts })).rejects.toThrow(
        new UsageError(
          `--hosts ${JSON.stringify(hosts)} names no host: give names like web-1,web-2, or leave --hosts out for every host`,
        ),
      );
  });

  it('refuse an empty --batch instead of ignoring it', async () => {
    await expect(rollout({ batch: '' })).rejects.toThrow(
      /^--batch "": expected a host count like 2 or a share like 25%$/,
    );
  });

  it('refuse a --batch larger than the hosts deployed, as deploy.yml does', async () => {
    await expect(rollout({ batch: '150' })).rejects.toThrow(
      new UsageError(
        '--batch 150 is more than the 2 hosts this rollout deploys; use at most 2 or a percentage',
      ),
    );
    await expect(rollout({ hosts: 'web-1', batch: '2' })).rejects.toThrow(
      /^--batch 2 is more than the 1 host this rollout/,
    );
  });

  it('refuse an empty --hosts on the other fleet commands (verify, status, setup, lock)', async () => {
    const config = await writeConfig(minimal);
    await expect(open({ config, hosts: ',' })).rejects.toThrow(/^--hosts "," names no host/);
  });
});
