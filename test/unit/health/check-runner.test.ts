import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { CheckRunner, type BackgroundCheck } from '../../../src/health/check-runner.js';
import { FakeClock } from '../../support/fake-clock.js';

const runner = (run: BackgroundCheck['run'], timeoutMs = 1000) =>
  new CheckRunner({ name: 'db', run, timeoutMs }, systemClock);

describe('one run of a background check', () => {
  it('passes when run returns anything but false', async () => {
    expect(await runner(() => undefined).run()).toMatchObject({ ok: true, code: 'OK' });
    expect(await runner(() => Promise.resolve({ rows: 1 })).run()).toMatchObject({
      ok: true,
      code: 'OK',
    });
  });

  it('fails with FAILED when run returns false', async () => {
    expect(await runner(() => false).run()).toMatchObject({ ok: false, code: 'FAILED' });
  });

  it("fails with the error's code when run throws or rejects, never its message", async () => {
    const refused = Object.assign(new Error('connect postgres://app:s3cret@db'), {
      code: 'ECONNREFUSED',
    });
    const threw = await runner(() => {
      throw refused;
    }).run();
    expect(threw).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    expect(JSON.stringify(threw)).not.toContain('s3cret');
    expect(await runner(() => Promise.reject(new Error('x'))).run()).toMatchObject({
      code: 'ERROR',
    });
  });

  it('takes a code only when it is a short identifier: anything else could carry a secret', async () => {
    const odd = Object.assign(new Error('x'), { code: 'password=hunter2 at db:5432' });
    expect(await runner(() => Promise.reject(odd)).run()).toMatchObject({ code: 'ERROR' });
  });

  it('fails with TIMEOUT when run never settles, and clears its deadline when it does', async () => {
    expect(await runner(() => new Promise(() => undefined), 20).run()).toMatchObject({
      ok: false,
      code: 'TIMEOUT',
    });
    const clock = new FakeClock();
    const aborted: boolean[] = [];
    const watching = {
      now: () => clock.now(),
      sleep: (_ms: number, signal?: AbortSignal) =>
        new Promise<void>((_resolve, reject) =>
          signal?.addEventListener('abort', () => {
            aborted.push(true);
            reject(new Error('aborted'));
          }),
        ),
    };
    const quick = new CheckRunner({ name: 'db', run: () => Promise.resolve(true) }, watching);
    expect(await quick.run()).toMatchObject({ ok: true });
    expect(aborted).toEqual([true]);
  });

  it("aborts the run's signal at its deadline, so a client that takes it ends the call", async () => {
    let seen: AbortSignal | undefined;
    const r = runner((signal) => {
      seen = signal;
      return new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(signal.reason as Error)),
      );
    }, 10);
    expect(await r.run()).toMatchObject({ ok: false, code: 'TIMEOUT' });
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException).name).toBe('TimeoutError');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(r.abandoned()).toBe(0);
  });

  it('starts a fresh run next round though the abandoned one never settles, and counts it', async () => {
    const answers: (() => Promise<unknown>)[] = [
      () => new Promise(() => undefined),
      () => Promise.resolve(true),
    ];
    let calls = 0;
    const r = runner(() => answers[Math.min(calls++, 1)]!(), 10);
    expect(await r.run()).toMatchObject({ ok: false, code: 'TIMEOUT' });
    expect(r.abandoned()).toBe(1);
    expect(await r.run()).toMatchObject({ ok: true, code: 'OK' });
    expect(calls).toBe(2);
    expect(r.abandoned()).toBe(1);
  });

  it('ignores what an abandoned run answers late', async () => {
    let late!: (value: boolean) => void;
    let calls = 0;
    const r = runner(() => (calls++ === 0 ? new Promise((res) => (late = res)) : false), 10);
    expect(await r.run()).toMatchObject({ code: 'TIMEOUT' });
    late(true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(r.abandoned()).toBe(0);
    expect(await r.run()).toMatchObject({ ok: false, code: 'FAILED' });
  });
});
