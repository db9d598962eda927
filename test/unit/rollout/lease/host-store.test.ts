import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HostLeaseStore } from '../../../../src/rollout/lease/host-store.js';
import { FakeClock } from '../../../support/fake-clock.js';
import { testConfig } from '../../../support/config.js';
import { tempDir } from '../../host/helpers.js';
import { LeaseHosts, request } from './lease-hosts.js';

let dir: string;
let cleanup: () => Promise<void>;
let clock: FakeClock;
let hosts: LeaseHosts;
// deploy.yml's order is not the lease's: the pieces go in sorted host names
const fleet = [...testConfig().hosts].reverse();
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir('handoff-lease-'));
  clock = new FakeClock();
  hosts = new LeaseHosts(dir, clock);
});
afterEach(() => cleanup());

const store = () => new HostLeaseStore(fleet, hosts.agentOf);
/** what a take that throws throws */
const refusal = (id: string) =>
  store()
    .take(request(id))
    .catch((e: unknown) => e as Error);

describe('the lease kept on the hosts', () => {
  it('the first host down: the others are only read, and every host down is named', async () => {
    hosts.down.add('web-1');
    hosts.down.add('web-3');
    const error = await refusal('a');
    expect((error as Error).message.split('\n').slice(0, 2)).toEqual([
      'preflight: web-1: connection refused',
      'preflight: web-3: connection refused',
    ]);
    expect(hosts.calls).toEqual(['web-1 take a', 'web-2 read', 'web-3 read']);
  });

  it("opens every host's session before the take, and leaves them to the command at the release", async () => {
    const s = store();
    await s.take(request('a'));
    expect(hosts.sessions).toEqual(['open web-1', 'open web-2', 'open web-3']);
    await s.renew(request('a'));
    await s.release(request('a'));
    await Promise.resolve();
    // the rollout's handshakes and its end read through the same sessions: Connections ends them
    expect(hosts.sessions).toEqual(['open web-1', 'open web-2', 'open web-3']);
    expect(hosts.calls.filter((c) => c.includes('release'))).toHaveLength(3);
  });

  it('takes a piece on every host, the first host alone, then the rest', async () => {
    expect(await store().take(request('a'))).toEqual({ ok: true, tookOver: [] });
    expect(hosts.calls).toEqual(['web-1 take a', 'web-2 take a', 'web-3 take a']);
    const views = await store().read();
    expect(views.map((v) => [v.where, v.lease?.id])).toEqual([
      ['web-1', 'a'],
      ['web-2', 'a'],
      ['web-3', 'a'],
    ]);
  });

  it('a second deployer is refused at the first host, and holds nothing', async () => {
    await store().take(request('a'));
    hosts.calls.length = 0;
    const take = await store().take(request('b', 'r8'));
    expect(take).toMatchObject({ ok: false, holder: { where: 'web-1', lease: { id: 'a' } } });
    expect(hosts.calls).toEqual(['web-1 take b']);
  });

  it('refused part-way (B after A): gives back what it took, then refuses', async () => {
    // someone holds web-2 only (a deployer mid-take, or a leftover still live)
    await new HostLeaseStore([fleet[1]!], hosts.agentOf).take(request('other'));
    const take = await store().take(request('b'));
    expect(take).toMatchObject({ ok: false, holder: { where: 'web-2' } });
    const views = await store().read();
    expect(views.map((v) => v.lease?.id ?? null)).toEqual([null, 'other', null]);
  });

  it('an unreachable host: exit 3 naming it, and nothing is left held', async () => {
    hosts.down.add('web-3');
    const taking = store().take(request('a'));
    await expect(taking).rejects.toMatchObject({ exitCode: 3 });
    await expect(taking).rejects.toThrow(
      /^preflight: web-3: connection refused\nthe fleet lease covers every host .*never partial/,
    );
    hosts.down.clear();
    expect((await store().read()).every((v) => v.lease === undefined)).toBe(true);
  });

  it('several unreachable hosts: one line each, each named once, all of them asked', async () => {
    hosts.down.add('web-2');
    hosts.down.add('web-3');
    const error = await refusal('a');
    expect((error as Error).message.split('\n')).toEqual([
      'preflight: web-2: connection refused',
      'preflight: web-3: connection refused',
      'the fleet lease covers every host of deploy.yml and is never partial: fix those hosts or remove them from deploy.yml',
    ]);
    // their sessions did not open, no verdict: web-1 (the first) taken alone, then the others at once; web-1 given back
    expect(hosts.calls).toEqual([
      'web-1 take a',
      'web-2 take a',
      'web-3 take a',
      'web-1 release a',
    ]);
    hosts.down.clear();
    expect((await store().read()).every((v) => v.lease === undefined)).toBe(true);
  });

  it('takes over expired pieces and says whose they were', async () => {
    await store().take(request('dead'));
    clock.advance(45_000);
    const take = await store().take(request('b'));
    expect(take.ok && take.tookOver.map((p) => [p.where, p.lease.id, p.ageMs])).toEqual([
      ['web-1', 'dead', 45_000],
      ['web-2', 'dead', 45_000],
      ['web-3', 'dead', 45_000],
    ]);
  });

  it('renewal says which piece was lost, and to whom', async () => {
    await store().take(request('a'));
    clock.advance(40_000);
    await new HostLeaseStore([fleet[0]!], hosts.agentOf).take(request('b'));
    expect(await store().renew(request('a'))).toMatchObject({
      ok: false,
      where: 'web-3',
      holder: { lease: { id: 'b' } },
    });
  });

  it('renewal goes on past an unreachable host, naming it', async () => {
    await store().take(request('a'));
    hosts.down.add('web-2');
    expect(await store().renew(request('a'))).toEqual({ ok: true, unreachable: ['web-2'] });
  });

  it('release gives back every piece; a host that cannot be read is named by read', async () => {
    await store().take(request('a'));
    await store().release(request('a'));
    hosts.down.add('web-1');
    const views = await store().read();
    expect(views[0]).toEqual({ where: 'web-1', unreachable: 'connection refused' });
    expect(views.slice(1).every((v) => v.lease === undefined && !v.problem)).toBe(true);
  });
});

describe('the lease kept on the hosts, leaving out hosts the network does not reach', () => {
  const skipping = () => new HostLeaseStore(fleet, hosts.agentOf, { skipUnreachable: true });

  it('takes every piece it can reach, names the host it left out, and does not ask it again', async () => {
    hosts.down.add('web-2');
    const take = await skipping().take(request('a'));
    expect(take).toEqual({
      ok: true,
      tookOver: [],
      skipped: [{ where: 'web-2', reason: 'connection refused' }],
    });
    // the session that did not open is the verdict: no second connection attempt at the take
    expect(hosts.calls).toEqual(['web-1 take a', 'web-3 take a']);
  });

  it('the first host down: the next one it reaches takes the first piece alone', async () => {
    hosts.down.add('web-1');
    await skipping().take(request('a'));
    const other = await skipping().take(request('b'));
    expect(other).toMatchObject({ ok: false, holder: { where: 'web-2', lease: { id: 'a' } } });
  });

  it('a deployer that reaches the dead host is still refused: they meet on every other piece', async () => {
    hosts.down.add('web-3');
    await skipping().take(request('a'));
    hosts.down.clear();
    const other = await skipping().take(request('b'));
    expect(other).toMatchObject({ ok: false, holder: { where: 'web-1', lease: { id: 'a' } } });
  });

  it('a host that comes back is taken at the next renewal, and given back at the release', async () => {
    hosts.down.add('web-3');
    const s = skipping();
    await s.take(request('a'));
    hosts.down.clear();
    expect(await s.renew(request('a'))).toEqual({ ok: true, unreachable: [], rejoined: ['web-3'] });
    expect((await store().read()).map((v) => v.lease?.id)).toEqual(['a', 'a', 'a']);
    await s.release(request('a'));
    expect((await store().read()).every((v) => v.lease === undefined)).toBe(true);
  });

  it('a stale piece of a gone deployer on the returning host is taken over', async () => {
    await store().take(request('dead'));
    hosts.down.add('web-3');
    clock.advance(45_000);
    const s = skipping();
    await s.take(request('a'));
    hosts.down.clear();
    expect(await s.renew(request('a'))).toMatchObject({ ok: true, rejoined: ['web-3'] });
    expect((await store().read()).map((v) => v.lease?.id)).toEqual(['a', 'a', 'a']);
  });

  it('releases only the pieces it holds: a skipped host is not asked', async () => {
    hosts.down.add('web-2');
    const s = skipping();
    await s.take(request('a'));
    hosts.calls.length = 0;
    await s.release(request('a'));
    expect(hosts.calls).toEqual(['web-1 release a', 'web-3 release a']);
  });

  it('two deployers cut off from different parts of the fleet never both hold it: each needs more than half', async () => {
    hosts.down.add('web-3');
    expect(await skipping().take(request('a'))).toMatchObject({ ok: true });
    // the other deployer reaches only web-3: on its own it would hold a lease beside a's
    hosts.down.clear();
    hosts.down.add('web-1');
    hosts.down.add('web-2');
    const error = (await skipping()
      .take(request('b'))
      .catch((e: unknown) => e)) as Error;
    expect(error.message.split('\n')).toEqual([
      'preflight: web-1: connection refused',
      'preflight: web-2: connection refused',
      "the fleet lease needs more than half of deploy.yml's hosts (2 of 3) and reached 1: two deployers each cut off from a different part of the fleet could otherwise both hold it; nothing was held",
    ]);
    hosts.down.clear();
    // nothing of b's is left, a's pieces are untouched
    expect((await store().read()).map((v) => v.lease?.id)).toEqual(['a', 'a', undefined]);
  });

  it('a minority it reached is given back', async () => {
    hosts.down.add('web-1');
    hosts.down.add('web-3');
    await expect(skipping().take(request('a'))).rejects.toThrow(/more than half/);
    hosts.down.clear();
    expect((await store().read()).every((v) => v.lease === undefined)).toBe(true);
    expect(hosts.calls).toContain('web-2 release a');
  });

  it('every host down is still refused, naming them', async () => {
    for (const n of ['web-1', 'web-2', 'web-3']) hosts.down.add(n);
    const error = (await skipping()
      .take(request('a'))
      .catch((e: unknown) => e)) as Error;
    expect(error.message.split('\n')).toEqual([
      'preflight: web-1: connection refused',
      'preflight: web-2: connection refused',
      'preflight: web-3: connection refused',
      'no host of deploy.yml answers: nothing was held',
    ]);
  });
});
