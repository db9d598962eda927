import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { readDrainMarker } from '../../../src/host/drain-marker.js';
import { readLockStatus } from '../../../src/host/lock.js';
import { lockHold } from '../../../src/host/agent/ops/lock-hold.js';
import type { AgentArgs } from '../../../src/host/agent/server.js';
import { HEARTBEAT } from '../../../src/protocol/ops.js';
import { hostFixture, type HostFixture } from '../../support/host-fixture.js';
import { memoryIO, startSession } from '../../support/memory-io.js';

let host: HostFixture | undefined;
afterEach(() => {
  host = undefined;
});

function session(h: HostFixture, args: AgentArgs) {
  const { m, holding } = startSession(h.config, args);
  let id = 0;
  const send = (op: string, args: Record<string, unknown> = {}) =>
    m.write(JSON.stringify({ call: { id: ++id, op, args } }));
  return { m, holding, send };
}

const beat = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the session heartbeat', () => {
  it('is declared once: the silence bound is three beats of the orchestrator', () => {
    expect(HEARTBEAT.silenceMs).toBe(3 * HEARTBEAT.everyMs);
  });

  it('ends a silent session: releases the lock, leaves the drain marker, says so and audits it', async () => {
    host = await hostFixture();
    const s = session(host, { what: 'rollout', message: 'release r2 by ci', silenceMs: 300 });
    await expect.poll(() => s.m.lines.some((l) => l.type === 'locked')).toBe(true);
    s.send('drain', { by: 'rollout r2 by ci', leaseMs: 600_000, release: 'r2' });
    // polled closely: the silence counts from that reply, and a late look would shorten it
    await expect
      .poll(() => s.m.lines.some((l) => l.type === 'reply' && l.ok), { interval: 5 })
      .toBe(true);
    const started = Date.now();
    expect(await s.holding).toBe(0);
    // not at once: after the bound, less what a busy machine's poll missed of it
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(s.m.lines.find((l) => l.type === 'result')).toMatchObject({
      ok: true,
      data: { released: true, reason: 'silence' },
    });
    expect(s.m.lines).toContainEqual(
      expect.objectContaining({ type: 'event', level: 'error', event: 'session.silent' }),
    );
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(false);
    expect((await readDrainMarker(host.config.host.state)).value).toMatchObject({
      release: 'r2',
    });
    const audit = await readFile(path.join(host.config.host.root, 'audit.jsonl'), 'utf8');
    const last = JSON.parse(audit.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
    expect(last).toMatchObject({ step: 'session.silent', release: 'r2', result: 'failed' });
    expect(last.who).toContain('release r2 by ci');
  });

  it('stays while heartbeats come, and ends once they stop', async () => {
    host = await hostFixture();
    const s = session(host, { what: 'rollout', silenceMs: 300 });
    await expect.poll(() => s.m.lines.some((l) => l.type === 'locked')).toBe(true);
    for (let i = 0; i < 8; i++) {
      s.send('heartbeat');
      await beat(100);
    }
    expect(s.m.lines.some((l) => l.type === 'result')).toBe(false);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(true);
    expect(s.m.lines.filter((l) => l.type === 'reply' && l.ok)).toHaveLength(8);
    expect(await s.holding).toBe(0);
    expect(s.m.lines.find((l) => l.type === 'result')).toMatchObject({
      data: { reason: 'silence' },
    });
  });

  it('does not count the silence while one of its own calls runs', async () => {
    host = await hostFixture();
    const m = memoryIO();
    // a stop that takes twice the bound: the orchestrator awaits its answer, it is not silent
    const holding = lockHold(host.config, m.io, {
      what: 'rollout',
      message: '',
      clock: systemClock,
      silenceMs: 300,
      handle: async (call) => {
        await beat(600);
        return { type: 'reply', id: call.id, ok: true, data: {} };
      },
    });
    await expect.poll(() => m.lines.some((l) => l.type === 'locked')).toBe(true);
    const sent = Date.now();
    m.write(JSON.stringify({ call: { id: 1, op: 'stop', args: {} } }));
    await expect.poll(() => m.lines.some((l) => l.type === 'reply'), { timeout: 5000 }).toBe(true);
    expect(Date.now() - sent).toBeGreaterThanOrEqual(590);
    expect(m.lines.some((l) => l.type === 'result')).toBe(false);
    expect((await readLockStatus(host.config.host.lock)).locked).toBe(true);
    // and counts it again from the answer on
    expect(await holding).toMatchObject({ reason: 'silence' });
    expect(Date.now() - sent).toBeGreaterThanOrEqual(890);
  });

  it('ends a deferred session that never took the lock the same way, with nothing to release', async () => {
    host = await hostFixture();
    const s = session(host, { what: 'rollout', defer: true, silenceMs: 200 });
    expect(await s.holding).toBe(0);
    expect(s.m.lines.find((l) => l.type === 'result')).toMatchObject({
      data: { released: false, reason: 'silence' },
    });
  });
});
