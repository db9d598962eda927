import { describe, expect, it } from 'vitest';
import { parseCounters } from '../../../src/balancer/haproxy/receipt/counters.js';
import { windowDelta } from '../../../src/evidence/kit/delta.js';
import { info, statAfterTraffic } from './fixtures/haproxy-2.6-counters.js';

describe('parseCounters', () => {
  it("reads each server's attempts and failures, and what only the backend row explains", () => {
    const parsed = parseCounters(statAfterTraffic, info, 'be');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { servers, own, epoch } = parsed.counters;
    expect(epoch).toBe('15916@1796154972');
    expect(servers.get('s1')).toEqual({
      epoch,
      requests: 4,
      kinds: { http_5xx: 0, connect: 0, response: 0 },
      retried: 0,
      latencyMs: 8,
    });
    expect(servers.get('s2')?.kinds).toEqual({ http_5xx: 0, connect: 4, response: 0 });
    // two 503s with both servers in maint, in the backend row's hrsp_5xx and its econ
    expect(own).toEqual({
      epoch,
      requests: 10,
      kinds: { no_server: 2, connect: 0, response: 0 },
    });
  });

  it("counts what only the backend row's econ and eresp hold as its own", () => {
    // the backend row: econ 6 → 9, eresp 0 → 1
    const extra = statAfterTraffic.replace(/^be,BACKEND,(([^,]*,){11})6,0,/m, 'be,BACKEND,$19,1,');
    const parsed = parseCounters(extra, info, 'be');
    expect(parsed.ok && parsed.counters.own.kinds).toEqual({
      no_server: 2,
      connect: 3,
      response: 1,
    });
  });

  it('adds the 5xx a frontend sent with no backend behind it', () => {
    const extra = statAfterTraffic.replace(/^fe,FRONTEND,(([^,]*,){41})6,/m, 'fe,FRONTEND,$19,');
    const parsed = parseCounters(extra, info, 'be');
    expect(parsed.ok && parsed.counters.own.kinds.no_server).toBe(5);
  });

  it('names what is missing: the header, a column, the pid, the backend', () => {
    expect(parseCounters('garbage', info, 'be')).toEqual({ ok: false, reason: 'no CSV header' });
    const noEcon = statAfterTraffic.replace(',econ,', ',xcon,');
    expect(parseCounters(noEcon, info, 'be')).toEqual({ ok: false, reason: 'no econ column' });
    expect(parseCounters(statAfterTraffic, 'Name: HAProxy\n', 'be')).toEqual({
      ok: false,
      reason: "'show info' names no Pid",
    });
    expect(parseCounters(statAfterTraffic, info, 'be_api')).toEqual({
      ok: false,
      reason: 'no backend be_api',
    });
  });

  it("keeps the readings of the servers asked for, and the backend's own from every server's row", () => {
    const all = parseCounters(statAfterTraffic, info, 'be');
    const asked = parseCounters(statAfterTraffic, info, 'be', new Set(['s1']));
    if (!all.ok || !asked.ok) throw new Error('fixture');
    expect([...asked.counters.servers.keys()]).toEqual(['s1']);
    expect(asked.counters.servers.get('s1')).toEqual(all.counters.servers.get('s1'));
    // s2's refused connections (econ 4, not asked for) still explain the backend's econ
    expect(asked.counters.own).toEqual(all.counters.own);
    expect(asked.counters.own.kinds).toEqual({ no_server: 2, connect: 0, response: 0 });
  });

  it('sums a row it was not asked for by its fields, a quoted one holding a comma too', () => {
    // haproxy quotes any field with a comma: the counters after it are found all the same
    const quoted = statAfterTraffic.replace('\nbe,s2,0,0,0,1,,4,', '\nbe,s2,0,0,0,1,"a, ""b""",4,');
    const asked = parseCounters(quoted, info, 'be', new Set(['s1']));
    expect(asked.ok && asked.counters.own.kinds).toEqual({ no_server: 2, connect: 0, response: 0 });
    const s2 = parseCounters(quoted, info, 'be', new Set(['s2']));
    expect(s2.ok && s2.counters.servers.get('s2')?.kinds).toEqual({
      http_5xx: 0,
      connect: 4,
      response: 0,
    });
  });

  it('has no reading for a server the backend lacks, and still its own', () => {
    const asked = parseCounters(statAfterTraffic, info, 'be', new Set(['s9']));
    expect(asked.ok && asked.counters.servers.size).toBe(0);
    expect(asked.ok && asked.counters.own.requests).toBe(10);
  });

  it('tells a reload from the next snapshot by the new pid', () => {
    const a = parseCounters(statAfterTraffic, info, 'be');
    const b = parseCounters(statAfterTraffic, info.replace('Pid: 15916', 'Pid: 16000'), 'be');
    if (!a.ok || !b.ok) throw new Error('fixture');
    const s1 = (c: typeof a.counters) => c.servers.get('s1');
    const start = s1(a.counters);
    const end = s1(b.counters);
    if (!start || !end) throw new Error('fixture');
    expect(windowDelta(start, end, 's1').kind).toBe('reset');
    expect(windowDelta(start, start, 's1')).toMatchObject({
      kind: 'counted',
      counts: { requests: 0 },
    });
  });
});
