import { describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import { createCheckSet } from '../../../src/health/check-set.js';
import { FakeClock } from '../../support/fake-clock.js';

function scripted(results: boolean[], critical = true) {
  let i = 0;
  return { name: critical ? 'db' : 'cache', critical, run: () => results[i++] ?? true };
}
const thresholds = { failures: 3, successes: 2 };

describe('the checks and their hysteresis', () => {
  it('is unknown before the first round, and the first round sets the state directly', async () => {
    const set = createCheckSet([scripted([false])], thresholds, new FakeClock());
    expect(set.critical()).toBe('unknown');
    expect(set.views()).toEqual([
      { name: 'db', healthy: false, critical: true, latency_ms: 0, code: 'PENDING' },
    ]);
    await set.round();
    expect(set.critical()).toBe('unhealthy');
  });

  it('fails a passing check only after failureThreshold rounds, passes it again after successThreshold', async () => {
    const set = createCheckSet(
      [scripted([true, false, false, false, true, true])],
      thresholds,
      new FakeClock(),
    );
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) {
      await set.round();
      seen.push(set.critical());
    }
    expect(seen).toEqual(['healthy', 'healthy', 'healthy', 'unhealthy', 'unhealthy', 'healthy']);
  });

  it('reports a failing non-critical check as degraded, not as a critical failure', async () => {
    const set = createCheckSet(
      [scripted([true]), scripted([false], false)],
      thresholds,
      new FakeClock(),
    );
    await set.round();
    expect(set.critical()).toBe('healthy');
    expect(set.degraded()).toBe(true);
    expect(set.views()[1]).toMatchObject({ name: 'cache', healthy: false, code: 'FAILED' });
  });

  it('counts checks as critical unless told otherwise', async () => {
    const set = createCheckSet([{ name: 'db', run: () => false }], thresholds, new FakeClock());
    await set.round();
    expect(set.views()[0]?.critical).toBe(true);
    expect(set.degraded()).toBe(false);
  });

  it('passes again successThreshold rounds after a hung dependency answers, though the hung call never settles', async () => {
    let back = false;
    const db = {
      name: 'db',
      timeoutMs: 10,
      // the first call hangs forever: a black-holed connection, a client that ignores its signal
      run: () => (back ? Promise.resolve(true) : new Promise(() => undefined)),
    };
    const set = createCheckSet([db], { failures: 1, successes: 2 }, systemClock);
    await set.round();
    expect(set.critical()).toBe('unhealthy');
    expect(set.views()[0]).toMatchObject({ code: 'TIMEOUT', abandoned: 1 });
    back = true;
    await set.round();
    expect(set.critical()).toBe('unhealthy');
    await set.round();
    expect(set.critical()).toBe('healthy');
    expect(set.views()[0]).toMatchObject({ code: 'OK', abandoned: 1 });
  });

  it('joins a round still running instead of starting every check again', async () => {
    let calls = 0;
    const slow = {
      name: 'db',
      timeoutMs: 50,
      run: () => new Promise((resolve) => setTimeout(() => resolve(++calls), 5)),
    };
    const set = createCheckSet([slow], thresholds, systemClock);
    await Promise.all([set.round(), set.round()]);
    expect(calls).toBe(1);
  });
});
