/**
 * The JSON edge's naming: internal TypeScript is camelCase with durations in
 * `…Ms` fields; what `--json` prints is snake_case with durations in `…_ms`
 * integer fields. Converted here, once, when a line is serialised, so no
 * command chooses its own style.
 */

/**
 * Duration fields (milliseconds, `Duration` in config/types.ts) whose internal
 * name carries no unit: printed as `<name>_ms`, so a script never guesses the
 * unit of `interval` or `offset`.
 */
const UNITLESS_DURATIONS: ReadonlySet<string> = new Set([
  'interval',
  'timeout',
  'duration',
  'offset',
  'hostWindow',
  'unhealthyWindow',
  'rolloutWorstCase',
  'deregistrationDelay',
  'slowStart',
  'idleTimeout',
  'stopTimeout',
  'overlap',
]);

/** `leftDrained` → `left_drained`, `elapsedMs` → `elapsed_ms`, `HTTPCode` → `http_code`; snake_case stays. */
export function snakeKey(key: string): string {
  return key
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
}

/** the program's own field names, each converted once: a 2 000-host rollout prints ~60 000 events */
const jsonKeys = new Map<string, string>();

function jsonKey(key: string): string {
  let json = jsonKeys.get(key);
  if (json === undefined) {
    json = UNITLESS_DURATIONS.has(key) ? `${snakeKey(key)}_ms` : snakeKey(key);
    // bounded: a map keyed by data that is not marked would otherwise grow it with the data
    if (jsonKeys.size < 1_000) jsonKeys.set(key, json);
  }
  return json;
}

const verbatim = new WeakSet<object>();

/**
 * Marks a map keyed by user data (host names, service names): its keys pass
 * the edge as they are (`apiServer` stays `apiServer`), its values are
 * converted. Prefer an array of objects with a name field where you can.
 */
export function keyedByUserData<T extends object>(map: T): T {
  verbatim.add(map);
  return map;
}

const isPlainObject = (v: object): boolean => {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

/**
 * A value as `--json` prints it: keys in snake_case (except in maps marked
 * with keyedByUserData, and Maps, which are keyed by data by nature),
 * durations under `…_ms` as whole milliseconds.
 */
export function toJsonShape(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => toJsonShape(v));
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value as Map<unknown, unknown>) out[String(k)] = toJsonShape(v);
    return out;
  }
  if (!isPlainObject(value)) {
    // a Date, an Error, a class instance: what JSON.stringify would make of it
    const json = (value as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return json.call(value);
    if (value instanceof Error) return { message: value.message };
  }
  const keep = verbatim.has(value);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v === undefined) continue;
    const key = keep ? k : jsonKey(k);
    const shaped = toJsonShape(v);
    out[key] =
      !keep && key.endsWith('_ms') && typeof shaped === 'number' && Number.isFinite(shaped)
        ? Math.round(shaped)
        : shaped;
  }
  return out;
}
