import { describe, expect, it } from 'vitest';
import { runCheck } from '../../../src/cli/check/check-command.js';
import type { Output } from '../../../src/cli/output.js';
import { testConfig } from '../../support/config.js';
import { settings } from '../timing/fixture.js';

function textOutput() {
  const lines: string[] = [];
  const results: boolean[] = [];
  const out: Output = {
    json: false,
    emit: () => undefined,
    text: (t) => void lines.push(...t.split('\n')),
    result: (ok) => void results.push(ok),
    raw: () => undefined,
  };
  return { out, lines, results };
}

// static: --live reads nothing from it, so only the hosts' last stops are live
// and a watchdog slow enough that --strict finds every invariant holds
const config = testConfig({
  balancers: [{ kind: 'static', healthCheck: settings, name: 'static', targets: {} }],
  watchdog: { ...testConfig().watchdog, every: 600_000 },
});

const unreachable = () => Promise.reject(new Error('connection refused'));

describe('deploy check --live that could read nothing (issue 34)', () => {
  it.each([true, false])(
    'does not pass (--strict %s): exit 3, saying no host was read',
    async (strict) => {
      const { out, lines, results } = textOutput();
      const checking = runCheck(config, out, { live: true, strict, readLastStop: unreachable });
      await expect(checking).rejects.toMatchObject({
        exitCode: 3,
        message: `--live read no host: all ${config.hosts.length} could not be reached (web-1: connection refused); nothing was checked live`,
      });
      expect(results).toEqual([false]);
      expect(lines.join('\n')).not.toMatch(/no service needed SIGKILL/);
    },
  );

  it('with --strict a host it could not read fails too, naming it', async () => {
    const { out } = textOutput();
    const read = (host: string) => (host === 'web-2' ? unreachable() : Promise.resolve(null));
    await expect(
      runCheck(config, out, { live: true, strict: true, readLastStop: read }),
    ).rejects.toMatchObject({
      exitCode: 3,
      message: '--live --strict: web-2 could not be read (connection refused)',
    });
    // without --strict the hosts it did read are enough
    await expect(
      runCheck(config, textOutput().out, { live: true, strict: false, readLastStop: read }),
    ).resolves.toBeUndefined();
  });
});
