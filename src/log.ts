/**
 * Structured events. Nothing below `cli/` prints: it emits events through a Log,
 * and the CLI renders them as text or as NDJSON (`--json`).
 */
export type Level = 'debug' | 'info' | 'warn' | 'error';

export interface LogEvent {
  readonly level: Level;
  /** a short machine name such as `drain`, `await-out`, `watchdog.restart` */
  readonly event: string;
  readonly message: string;
  readonly host?: string;
  readonly fields?: Readonly<Record<string, unknown>>;
}

export interface Log {
  emit(event: LogEvent): void;
}

/** A log that remembers everything: for tests, and for commands that render at the end. */
export class MemoryLog implements Log {
  readonly events: LogEvent[] = [];
  emit(event: LogEvent): void {
    this.events.push(event);
  }
}

export const silentLog: Log = { emit: () => undefined };
