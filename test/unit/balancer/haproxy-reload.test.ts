import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { HaproxyBalancer } from '../../../src/balancer/haproxy/adapter.js';
import { parseShowInfo, reloaded } from '../../../src/balancer/haproxy/reload-watch.js';
import { MemoryLog } from '../../../src/log.js';
import { balancerOnFake, type FakeSocket } from '../../support/fake-haproxy-socket.js';
import { FakeClock } from '../../support/fake-clock.js';
import * as fixture from './fixtures/haproxy-2.6.js';

const info = (pid: number, uptime: number) =>
  `Name: HAProxy\nVersion: 2.6.12\nPid: ${pid}\nUptime: 0d 0h00m${uptime}s\nUptime_sec: ${uptime}\n`;

describe('show info', () => {
  it('gives the pid and uptime of the answering process', () => {
    expect(parseShowInfo(info(4242, 17))).toEqual({ pid: 4242, uptimeSec: 17 });
    expect(parseShowInfo('Unknown command.\n')).toBeUndefined();
    expect(parseShowInfo('Pid: 3\n')).toBeUndefined();
  });

  it('tells a reload by another pid or an uptime that went back', () => {
    expect(reloaded({ pid: 1, uptimeSec: 10 }, { pid: 1, uptimeSec: 11 })).toBe(false);
    expect(reloaded({ pid: 1, uptimeSec: 10 }, { pid: 2, uptimeSec: 11 })).toBe(true);
    expect(reloaded({ pid: 1, uptimeSec: 10 }, { pid: 1, uptimeSec: 9 })).toBe(true);
    expect(reloaded({ pid: 1, uptimeSec: 10 }, { pid: 1, uptimeSec: 10 })).toBe(false);
  });
});

describe('an haproxy reload during a deploy', () => {
  let fake: FakeSocket;
  let log: MemoryLog;
  let clock: FakeClock;
  let balancer: HaproxyBalancer;
  let close: () => Promise<void>;
  beforeEach(async () => {
    log = new MemoryLog();
    clock = new FakeClock();
    ({ fake, balancer, close } = await balancerOnFake({ reloadPollMs: 250 }, { clock, log }));
    fake.answers = {
      'show info': info(100, 50),
      'set server be_app/web-1 state drain': '\n',
      'set server be_app/web-1 state ready': '\n',
      'show servers state be_app': fixture.serversStateSteady,
      'show stat be_app 4 -1': fixture.statSteady,
    };
  });
  afterEach(() => close());

  const drains = () => fake.received.filter((c) => c === 'set server be_app/web-1 state drain');

  it('puts a drain back at once when another process answers the next poll, and says so', async () => {
    await balancer.deregister('web-1');
    expect(drains()).toHaveLength(1);
    fake.answers['show info'] = info(200, 0);
    await balancer.states(['web-1']);
    expect(drains()).toHaveLength(2);
    const event = log.events.find((e) => e.event === 'balancer.reload');
    expect(event?.level).toBe('warn');
    expect(event?.message).toBe(
      `haproxy ${fake.path} reloaded (pid 100 → 200, up 0s): setting web-1 drain again; configure server-state-file and load-server-state-from-file so a reload keeps it (docs/balancers.md)`,
    );
  });

  it('tells its reload listeners once the drain is set again, and no more once unsubscribed', async () => {
    const heard: string[] = [];
    const off = balancer.onReload((r) => heard.push(r.message));
    await balancer.deregister('web-1');
    fake.answers['show info'] = info(200, 0);
    await balancer.states(['web-1']);
    expect(heard).toEqual([
      `haproxy ${fake.path} reloaded (pid 100 → 200, up 0s); set web-1 drain again`,
    ]);
    off();
    fake.answers['show info'] = info(300, 0);
    await balancer.states(['web-1']);
    expect(heard).toHaveLength(1);
  });

  it('watches in the background while a drain is held, so a reload mid-stop is caught without a poll', async () => {
    await balancer.deregister('web-1');
    fake.answers['show info'] = info(300, 0);
    // no states() call: the stop step polls nothing; the watch looks every 250 ms of the clock
    await vi.waitFor(() => expect(drains()).toHaveLength(2), { timeout: 5_000 });
    expect(clock.sleeps).toContain(250);
    expect(log.events.some((e) => e.event === 'balancer.reload')).toBe(true);
  });

  it('stops watching once the server is registered again, and puts nothing back after', async () => {
    await balancer.deregister('web-1');
    await balancer.register('web-1');
    fake.answers['show info'] = info(400, 0);
    await balancer.states(['web-1']);
    expect(drains()).toHaveLength(1);
    const reload = log.events.find((e) => e.event === 'balancer.reload');
    // the reload is still worth a line, with nothing to put back
    expect(reload?.message).toBe(`haproxy ${fake.path} reloaded (pid 100 → 400, up 0s)`);
  });
});

describe('a reassert that fails', () => {
  it('is tried again at the next look', async () => {
    const { fake, balancer, close } = await balancerOnFake();
    fake.answers = { 'show info': info(1, 5), 'set server be_app/web-1 state drain': '\n' };
    await balancer.deregister('web-1');
    fake.answers = {
      'show info': info(2, 0),
      'set server be_app/web-1 state drain': 'No such server.\n',
    };
    await expect(balancer.states(['web-1'])).rejects.toThrow('haproxy has no server web-1');
    fake.answers = {
      ...fake.answers,
      'set server be_app/web-1 state drain': '\n',
      'show servers state be_app': fixture.serversStateSteady,
      'show stat be_app 4 -1': fixture.statSteady,
    };
    await balancer.states(['web-1']);
    expect(fake.received.filter((c) => c.endsWith('state drain'))).toHaveLength(3);
    await close();
  });
});

describe('a reload seen through the states read', () => {
  const states = 'show info;show servers state be_app;show stat be_app 4 -1';
  let fake: FakeSocket;
  let heard: string[];
  let balancer: HaproxyBalancer;
  let close: () => Promise<void>;
  beforeEach(async () => {
    // no clock, so no background watch: every connection here is one the test made
    ({ fake, balancer, close } = await balancerOnFake({ timeoutMs: 300 }));
    heard = [];
    balancer.onReload((r) => heard.push(r.message));
    fake.answers = {
      'show info': info(100, 50),
      'set server be_app/web-1 state drain': '\n',
      'show servers state be_app': fixture.serversStateSteady,
      'show stat be_app 4 -1': fixture.statSteady,
    };
    await balancer.deregister('web-1');
    fake.received.length = 0;
  });
  afterEach(() => close());

  it("takes the pid from the read's own show info: one connection, then the drain set again", async () => {
    fake.answers['show info'] = info(200, 0);
    const read = await balancer.states(['web-1']);
    expect(read.get('web-1')?.state).toBe('healthy');
    expect(fake.received).toEqual([states, 'set server be_app/web-1 state drain']);
    expect(heard).toEqual([
      `haproxy ${fake.path} reloaded (pid 100 → 200, up 0s); set web-1 drain again`,
    ]);
  });

  it('reads the rows when the info is garbage, and compares the next pid with the last one it read', async () => {
    fake.answers['show info'] = 'Unknown command.\n';
    expect((await balancer.states(['web-1'])).get('web-1')?.state).toBe('healthy');
    expect(heard).toEqual([]);
    fake.answers['show info'] = info(300, 0);
    await balancer.states(['web-1']);
    expect(heard).toEqual([
      `haproxy ${fake.path} reloaded (pid 100 → 300, up 0s); set web-1 drain again`,
    ]);
  });

  it('fails the read when the socket does not answer, and still sees the reload at the next', async () => {
    fake.answers[states] = null;
    await expect(balancer.states(['web-1'])).rejects.toThrow(/did not answer/);
    delete fake.answers[states];
    fake.answers['show info'] = info(400, 0);
    await balancer.states(['web-1']);
    expect(heard).toEqual([
      `haproxy ${fake.path} reloaded (pid 100 → 400, up 0s); set web-1 drain again`,
    ]);
  });
});
