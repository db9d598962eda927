/**
 * The shape of an entry of the operation table (ops.ts): where an operation
 * runs, what it takes, how long the client waits, what it answers.
 */
declare const carried: unique symbol;
/** an operation's result type, carried by the table for the type checker only */
export interface Returns<T> {
  readonly [carried]?: T;
}
export const returns = <T>(): Returns<T> => ({});

/**
 * Where an operation runs:
 * - `process`: a `deploy host <op>` process of its own, always;
 * - `session`: inside the host's open `lock-hold` session when there is one
 *   (also before it holds the lock: nothing here touches what runs), else
 *   its own process;
 * - `locked`: inside the session while it holds the lock, else its own
 *   process; never as if it held a lock it lost;
 * - `holder`: the session's own words (take the lock, give it back), answered
 *   by the `lock-hold` process itself (host/agent/ops/lock-hold.ts); never a
 *   process of its own.
 */
export type Channel = 'process' | 'session' | 'locked' | 'holder';

/**
 * An argument's kind, which is also how its flag is read: `text` as given,
 * `release` a release id (release-id.ts), `ms` a whole number up to what a
 * timer can wait, `count` a whole number up to a million, `switch` present or not.
 */
export type ArgKind = 'text' | 'release' | 'ms' | 'count' | 'switch';

export interface ArgSpec {
  readonly kind: ArgKind;
  readonly required?: true;
}

export interface OpSpec {
  readonly channel: Channel;
  /** changes nothing on the host: a session runs it beside the others */
  readonly readOnly: boolean;
  /** keyed by the argument's camelCase name; its flag is the kebab-case one */
  readonly args: Readonly<Record<string, ArgSpec>>;
  /** in its own process, this argument goes down stdin instead of argv */
  readonly stdin?: string;
  /** the client's bound; none: a process has none, a session its default (session.ts) */
  readonly timeoutMs?: number | ((args: Readonly<Record<string, unknown>>) => number | undefined);
  readonly result: Returns<unknown>;
}
