import { describe, expect, it } from 'vitest';
import { FreshRead } from '../../src/fresh-read.js';

/** a read whose answers the test gives, one by one, in the order the reads began */
function scripted() {
  const pending: ((n: number) => void)[] = [];
  let began = 0;
  const fresh = new FreshRead(
    () =>
      new Promise<number>((resolve) => {
        began += 1;
        pending.push(resolve);
      }),
  );
  const answer = (n: number) => pending.shift()?.(n);
  return { fresh, answer, began: () => began };
}

describe('FreshRead', () => {
  it('reads at once when nothing is under way', async () => {
    const s = scripted();
    const a = s.fresh.get();
    expect(s.began()).toBe(1);
    s.answer(1);
    expect(await a).toBe(1);
  });

  it('gives callers that came during a read the one read that starts after it, not its answer', async () => {
    const s = scripted();
    const first = s.fresh.get();
    const later = [s.fresh.get(), s.fresh.get(), s.fresh.get()];
    expect(s.began()).toBe(1);
    s.answer(1);
    expect(await first).toBe(1);
    await Promise.resolve();
    expect(s.began()).toBe(2);
    s.answer(2);
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
  });

  it('reads again for a caller that comes after a read ended', async () => {
    const s = scripted();
    const first = s.fresh.get();
    s.answer(1);
    await first;
    const next = s.fresh.get();
    expect(s.began()).toBe(2);
    s.answer(2);
    expect(await next).toBe(2);
  });

  it('gives a read every key its callers named, and the next read only the keys named since', async () => {
    const reads: string[][] = [];
    const pending: (() => void)[] = [];
    const fresh = new FreshRead<string[], string>((wanted) => {
      const keys = [...wanted];
      reads.push(keys);
      return new Promise((resolve) => pending.push(() => resolve(keys)));
    });
    const first = fresh.get(['web-1']);
    const later = [fresh.get(['web-2']), fresh.get(['web-3', 'web-2']), fresh.get()];
    expect(reads).toEqual([['web-1']]);
    pending.shift()?.();
    expect(await first).toEqual(['web-1']);
    await Promise.resolve();
    expect(reads).toEqual([['web-1'], ['web-2', 'web-3']]);
    pending.shift()?.();
    expect(await Promise.all(later)).toEqual([
      ['web-2', 'web-3'],
      ['web-2', 'web-3'],
      ['web-2', 'web-3'],
    ]);
    const after = fresh.get(['web-4']);
    expect(reads.at(-1)).toEqual(['web-4']);
    pending.shift()?.();
    expect(await after).toEqual(['web-4']);
  });

  it('a failed read fails its callers only: the ones waiting get a read of their own', async () => {
    let calls = 0;
    const fresh = new FreshRead(() =>
      (calls += 1) === 1 ? Promise.reject(new Error('refused')) : Promise.resolve(calls),
    );
    const first = fresh.get();
    const later = fresh.get();
    await expect(first).rejects.toThrow('refused');
    expect(await later).toBe(2);
  });
});
