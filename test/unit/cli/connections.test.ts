import { describe, expect, it } from 'vitest';
import { Connections } from '../../../src/cli/connections.js';
import { silentLog } from '../../../src/log.js';
import type { RemoteProcess, Transport } from '../../../src/remote/transport.js';
import { testConfig } from '../../support/config.js';

/** a fake Transport that records what is spawned and answers nothing */
function recorder(spawned: string[], ended: string[] = []) {
  return (host: { name: string }): Promise<Transport> =>
    Promise.resolve({
      host: host.name,
      exec: () => Promise.reject(new Error('not in this test')),
      spawn: (argv): RemoteProcess => {
        spawned.push(`${host.name}: ${argv.slice(1, 3).join(' ')}`);
        const lines = ['{"type":"ready"}'];
        return {
          lines: {
            [Symbol.asyncIterator]: () => ({
              // one line, then nothing more: the session stays open
              next: () => {
                const value = lines.shift();
                return value === undefined
                  ? new Promise(() => undefined)
                  : Promise.resolve({ value, done: false });
              },
            }),
          },
          write: () => undefined,
          end: () => void ended.push(host.name),
          exited: new Promise(() => undefined),
          kill: () => undefined,
        };
      },
      put: () => Promise.resolve(),
      upload: () => Promise.resolve(),
      close: () => Promise.resolve(),
    });
}

function connections(
  hosts: number,
  maxConnections: number,
  spawned: string[],
  ended: string[] = [],
) {
  const base = testConfig({}, hosts);
  const config = { ...base, ssh: { ...base.ssh, maxConnections } };
  return new Connections(config, silentLog, undefined, recorder(spawned, ended));
}

describe('Connections and ssh.max_connections', () => {
  it('opens the lock-holding session in preflight when every host can keep its connection', async () => {
    const spawned: string[] = [];
    const c = connections(3, 3, spawned);
    await (await c.agent(c.config.hosts[0]!)).openSession();
    expect(spawned).toEqual(['web-1: host lock-hold']);
  });

  it('opens no session ahead when the fleet is larger than max_connections (it would hold a slot)', async () => {
    const spawned: string[] = [];
    const c = connections(3, 2, spawned);
    await (await c.agent(c.config.hosts[0]!)).openSession();
    expect(spawned).toEqual([]);
  });

  it('gives one agent per host to every caller, so the lease, preflight and the handshake share one session', async () => {
    const spawned: string[] = [];
    const ended: string[] = [];
    const c = connections(2, 2, spawned, ended);
    const host = c.config.hosts[0]!;
    const [a, b] = await Promise.all([c.agent(host), c.agent(host)]);
    expect(a).toBe(b);
    await a.openSession();
    await (await c.agent(host)).openSession();
    expect(spawned).toEqual(['web-1: host lock-hold']);
    expect(await c.agent(c.config.hosts[1]!)).not.toBe(a);
    // the command's end ends the sessions it opened
    await c.close();
    expect(ended).toEqual(['web-1']);
  });
});
