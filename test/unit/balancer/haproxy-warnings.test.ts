import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CheckedSettings } from '../../../src/balancer/kind.js';
import { haproxyWarnings } from '../../../src/balancer/haproxy/warnings.js';
import type { Config } from '../../../src/config/types.js';
import { settings } from '../../support/fake-fleet.js';
import { testConfig } from '../../support/config.js';
import { scratchDir } from '../../support/scratch.js';

async function haproxyCfg(text: string): Promise<string> {
  const file = path.join(await scratchDir('handoff-pair-'), 'haproxy.cfg');
  await writeFile(file, text);
  return file;
}

function pairConfig(method: 'health' | 'deregister', configs: (string | undefined)[]): Config {
  const base = testConfig();
  return {
    ...base,
    drain: { ...base.drain, method },
    balancers: configs.map((config, i) => ({
      name: `lb-${'ab'[i]}`,
      kind: 'haproxy' as const,
      socket: `/run/${i}.sock`,
      backend: 'be_api',
      targets: {},
      ...(config ? { config } : {}),
    })),
  };
}

const same: CheckedSettings[] = ['lb-a', 'lb-b'].map((name) => ({
  name,
  settings,
  source: 'live',
}));

describe('deploy check --live: what it warns of beside the invariants', () => {
  it('names the two instances of one backend that check differently, and what differs', async () => {
    const config = pairConfig('health', [undefined, undefined]);
    const slower = [same[0]!, { ...same[1]!, settings: { ...settings, unhealthyThreshold: 3 } }];
    expect(await haproxyWarnings(config, slower)).toEqual([
      'lb-a and lb-b (backend be_api) check differently (unhealthyThreshold): the slower one sets the bounds; give both the same settings so a drain is seen at once',
    ]);
    expect(await haproxyWarnings(config, same)).toEqual([]);
  });

  it('warns of drain.method deregister on an HAProxy that keeps no server-state file, or has no config to tell', async () => {
    const kept = await haproxyCfg(
      'global\n  server-state-file /var/lib/haproxy/state\ndefaults\n  load-server-state-from-file global\n',
    );
    // commented out is not configured
    const none = await haproxyCfg('global\n  # server-state-file /x\ndefaults\n  mode http\n');
    const config = pairConfig('deregister', [kept, none]);
    expect(await haproxyWarnings(config, same)).toEqual([
      `lb-b: drain.method deregister without a server-state file in ${none}: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)`,
    ]);
    expect(await haproxyWarnings(pairConfig('deregister', [kept, undefined]), same)).toEqual([
      'lb-b: drain.method deregister and no balancer config file to tell whether a server-state file is kept: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)',
    ]);
    // drain.method health undoes nothing on a reload: no warning
    expect(await haproxyWarnings(pairConfig('health', [none, none]), same)).toEqual([]);
  });

  it('an HAProxy on its own host (ssh:): judged by the config --live read there, never by a file here', async () => {
    const base = pairConfig('deregister', ['/etc/haproxy/haproxy.cfg', '/etc/haproxy/haproxy.cfg']);
    const config: Config = {
      ...base,
      balancers: base.balancers.map((b) => ({ ...b, ssh: { address: `${b.name}.internal` } })),
    };
    const kept =
      'global\n  server-state-file /var/lib/haproxy/state\ndefaults\n  load-server-state-from-file global\n';
    const read = [same[0]!, { ...same[1]!, configText: kept }];
    expect(await haproxyWarnings(config, read)).toEqual([
      'lb-a: drain.method deregister and no balancer config file to tell whether a server-state file is kept: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)',
    ]);
    expect(
      await haproxyWarnings(config, [
        { ...same[0]!, configText: 'defaults\n  mode http\n' },
        read[1]!,
      ]),
    ).toEqual([
      'lb-a: drain.method deregister without a server-state file in /etc/haproxy/haproxy.cfg: a reload during a deploy puts a drained server back in rotation; set server-state-file and load-server-state-from-file (docs/balancers.md)',
    ]);
  });
});
