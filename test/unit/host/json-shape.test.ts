import { describe, expect, it } from 'vitest';
import * as shape from '../../../src/host/json-shape.js';

const check = <T>(s: shape.Shape<T>, value: unknown): T => shape.parser(s).parse(value);
const problem = (s: shape.Shape<unknown>, value: unknown): unknown => {
  try {
    check(s, value);
  } catch (error) {
    return { message: (error as Error).message, issues: (error as shape.ShapeError).issues };
  }
  throw new Error(`${JSON.stringify(value)} passed`);
};

describe('json-shape', () => {
  it('takes the values each leaf names and refuses the rest, saying what it got', () => {
    expect(check(shape.string, '')).toBe('');
    expect(check(shape.nonEmptyString, 'x')).toBe('x');
    expect(check(shape.number, 1.5)).toBe(1.5);
    expect(check(shape.int, -3)).toBe(-3);
    expect(check(shape.nonNegativeInt, 0)).toBe(0);
    expect(check(shape.boolean, false)).toBe(false);
    expect(check(shape.literal(1), 1)).toBe(1);
    expect(check(shape.oneOf('a', 'b'), 'b')).toBe('b');
    expect(problem(shape.string, 1)).toMatchObject({ message: 'expected string, received number' });
    expect(problem(shape.nonEmptyString, '')).toMatchObject({
      message: 'expected a non-empty string, received string',
    });
    expect(problem(shape.number, '1')).toMatchObject({ message: /received string/ });
    expect(problem(shape.int, 1.5)).toMatchObject({ message: /expected integer/ });
    expect(problem(shape.int, 2 ** 53)).toMatchObject({ message: /expected integer/ });
    expect(problem(shape.nonNegativeInt, -1)).toMatchObject({ message: /non-negative/ });
    expect(problem(shape.boolean, null)).toMatchObject({ message: /received null/ });
    expect(problem(shape.literal(1), 2)).toMatchObject({ message: /expected 1/ });
    expect(problem(shape.oneOf('a', 'b'), 'c')).toMatchObject({ message: /one of a, b/ });
  });

  it('takes an ISO date-time as zod.iso.datetime({ offset: true }) does', () => {
    for (const ok of [
      '2026-11-30T10:00:00.000Z',
      '2026-11-30T10:00:00Z',
      '2026-11-30T10:00:00+01:00',
      '2024-02-29T23:59:59.5-05:30',
      '2000-02-29T00:00:00Z',
    ])
      expect(check(shape.isoDateTime, ok)).toBe(ok);
    for (const bad of [
      '2026-11-30T10:00Z', // RFC 3339 wants seconds
      '2026-11-30T10:00:00', // no zone
      '2026-02-29T10:00:00Z', // not a leap year
      '1900-02-29T10:00:00Z',
      '2026-04-31T10:00:00Z',
      '2026-11-30T24:00:00Z',
      '2026-11-30 10:00:00Z',
      'x2026-11-30T10:00:00Z',
    ])
      expect(problem(shape.isoDateTime, bad)).toMatchObject({ message: /ISO date-time/ });
    expect(problem(shape.isoDateTime, 1)).toMatchObject({ message: /expected string/ });
  });

  it('keeps only the keys an object names, leaves an absent optional one absent, and says where a value is wrong', () => {
    const s = shape.object({
      a: shape.string,
      b: shape.optional(shape.int),
      c: shape.array(shape.object({ d: shape.boolean })),
    });
    expect(check(s, { a: 'x', c: [{ d: true, e: 1 }], z: 'dropped' })).toStrictEqual({
      a: 'x',
      c: [{ d: true }],
    });
    expect(check(s, { a: 'x', b: 2, c: [] })).toStrictEqual({ a: 'x', b: 2, c: [] });
    expect(problem(s, { a: 'x', c: [{ d: true }, { d: 'no' }] })).toStrictEqual({
      message: 'c.1.d: expected boolean, received string',
      issues: [{ path: ['c', 1, 'd'], message: 'expected boolean, received string' }],
    });
    expect(problem(s, { c: [] })).toMatchObject({
      message: 'a: expected string, received undefined',
    });
    expect(problem(s, [])).toMatchObject({ message: 'expected object, received array' });
    expect(problem(s, null)).toMatchObject({ message: 'expected object, received null' });
  });

  it('reads a record of any keys, a __proto__ key as an own key, never the prototype', () => {
    const s = shape.record(shape.int);
    const read = check(s, JSON.parse('{"x": 1, "__proto__": 2}'));
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.entries(read)).toEqual([
      ['x', 1],
      ['__proto__', 2],
    ]);
    expect(problem(s, { x: 1, y: 'two' })).toMatchObject({ issues: [{ path: ['y'] }] });
  });

  it('never reads an inherited key as an object field', () => {
    const s = shape.object({ toString: shape.optional(shape.string) });
    expect(check(s, {})).toStrictEqual({});
  });
});
