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

  it('does not start a check still running from an earlier round: that round is another TIMEOUT', async () => {
    let calls = 0;
    let settle!: () => void;
    const hanging = runner(() => {
      calls += 1;
      return new Promise<void>((r) => (settle = r));
    }, 10);
    expect(await hanging.run()).toMatchObject({ code: 'TIMEOUT' });
    expect(await hanging.run()).toMatchObject({ code: 'TIMEOUT' });
    expect(calls).toBe(1);
    settle();
    await new Promise<void>((r) => setImmediate(r));
    expect(await hanging.run()).toMatchObject({ ok: false, code: 'TIMEOUT' });
    expect(calls).toBe(2);
  });
});
