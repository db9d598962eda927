import type { Parser } from './state-store.js';

/**
 * Shapes of the small JSON documents a watchdog tick reads from host.state
 * (its counters, the drain marker, the lock's holder), checked by plain
 * functions. zod/mini did this for them, but loading it and building their
 * schemas was a tenth of every tick's CPU, once a minute on every host
 * (docs/benchmarks.md); the config, read far less often, keeps zod. Like a
 * zod object, a shape keeps only the keys it names, and a mismatch throws
 * with `issues` (path and message), which state-store.ts reports.
 */
export type Shape<T> = (value: unknown, at: readonly (string | number)[]) => T;

export class ShapeError extends Error {
  readonly issues: readonly { path: readonly (string | number)[]; message: string }[];
  constructor(at: readonly (string | number)[], message: string) {
    super(at.length > 0 ? `${at.join('.')}: ${message}` : message);
    this.issues = [{ path: at, message }];
  }
}

function expected(what: string, value: unknown, at: readonly (string | number)[]): never {
  const got = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  throw new ShapeError(at, `expected ${what}, received ${got}`);
}

export const string: Shape<string> = (v, at) =>
  typeof v === 'string' ? v : expected('string', v, at);

export const nonEmptyString: Shape<string> = (v, at) =>
  string(v, at) !== '' ? (v as string) : expected('a non-empty string', v, at);

export const number: Shape<number> = (v, at) =>
  typeof v === 'number' && Number.isFinite(v) ? v : expected('number', v, at);

export const int: Shape<number> = (v, at) =>
  Number.isSafeInteger(v) ? (v as number) : expected('integer', v, at);

export const nonNegativeInt: Shape<number> = (v, at) =>
  int(v, at) >= 0 ? (v as number) : expected('a non-negative integer', v, at);

export const boolean: Shape<boolean> = (v, at) =>
  typeof v === 'boolean' ? v : expected('boolean', v, at);

export function literal<const T extends string | number | boolean>(value: T): Shape<T> {
  return (v, at) => (v === value ? value : expected(JSON.stringify(value), v, at));
}

export function oneOf<const T extends string>(...values: T[]): Shape<T> {
  return (v, at) =>
    values.includes(v as T) ? (v as T) : expected(`one of ${values.join(', ')}`, v, at);
}

// zod's z.iso.datetime({ offset: true }): a real calendar date, seconds, Z or ±hh:mm
const dateSource =
  '(?:(?:\\d\\d[2468][048]|\\d\\d[13579][26]|\\d\\d0[48]|[02468][048]00|[13579][26]00)-02-29|\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|(?:02)-(?:0[1-9]|1\\d|2[0-8])))';
const isoDateTimePattern = new RegExp(
  `^${dateSource}T(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:Z|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)$`,
);

export const isoDateTime: Shape<string> = (v, at) =>
  isoDateTimePattern.test(string(v, at)) ? (v as string) : expected('an ISO date-time', v, at);

export function optional<T>(shape: Shape<T>): Shape<T | undefined> {
  return (v, at) => (v === undefined ? undefined : shape(v, at));
}

export function array<T>(item: Shape<T>): Shape<T[]> {
  return (v, at) =>
    Array.isArray(v) ? v.map((x: unknown, i) => item(x, [...at, i])) : expected('array', v, at);
}

function plainObject(v: unknown, at: readonly (string | number)[]): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : expected('object', v, at);
}

/** every value of a JSON object, whatever its keys; `__proto__` stays an own key */
export function record<T>(item: Shape<T>): Shape<Record<string, T>> {
  return (v, at) =>
    Object.fromEntries(
      Object.entries(plainObject(v, at)).map(([k, x]) => [k, item(x, [...at, k])]),
    );
}

type Shaped<S extends Record<string, Shape<unknown>>> = {
  [K in keyof S as undefined extends ReturnType<S[K]> ? never : K]: ReturnType<S[K]>;
} & {
  [K in keyof S as undefined extends ReturnType<S[K]> ? K : never]?: Exclude<
    ReturnType<S[K]>,
    undefined
  >;
};

/** the keys it names, checked; any other key is dropped; an optional one absent stays absent */
export function object<S extends Record<string, Shape<unknown>>>(shape: S): Shape<Shaped<S>> {
  const keys = Object.keys(shape);
  return (v, at) => {
    const o = plainObject(v, at);
    const out: [string, unknown][] = [];
    for (const k of keys) {
      const x = shape[k]?.(Object.hasOwn(o, k) ? o[k] : undefined, [...at, k]);
      if (x !== undefined) out.push([k, x]);
    }
    return Object.fromEntries(out) as Shaped<S>;
  };
}

/** what StateStore.read takes */
export function parser<T>(shape: Shape<T>): Parser<T> {
  return { parse: (value) => shape(value, []) };
}
