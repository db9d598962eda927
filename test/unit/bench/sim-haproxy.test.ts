import { describe, expect, it } from 'vitest';
import { readHaproxyCounters } from '../../../src/balancer/haproxy/receipt/read.js';
import { SimHostState } from '../../../scripts/bench/sim/agent.js';
import { startSimHaproxy } from '../../../scripts/bench/sim/haproxy.js';

describe("the simulated fleet's HAProxy", () => {
  it("answers the receipt's `show info;show stat` in order on one connection, as HAProxy does", async () => {
    const hosts = [new SimHostState('web-1', 0, '/tmp'), new SimHostState('web-2', 0, '/tmp')];
    const haproxy = await startSimHaproxy(hosts, { intervalMs: 300, fall: 2, rise: 2 });
    try {
      const counters = await readHaproxyCounters(haproxy);
      expect(counters.epoch).toContain('4242');
      expect([...counters.servers.keys()].sort()).toEqual(['web-1', 'web-2']);
      expect(haproxy.commands.get('show info')).toBe(1);
      expect(haproxy.commands.get('show stat')).toBe(1);
    } finally {
      await haproxy.close();
    }
  });
});
