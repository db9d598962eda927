import { mkdir } from 'node:fs/promises';
import { OperationError } from '../errors.js';
import { StateStore } from '../host/state-store.js';
import type { Log } from '../log.js';
import { freshState, watchdogStateSchema, type WatchdogState } from './state.js';

/** What a tick needs of the state store; a test gives one whose disk is full. */
export type CounterStore = Pick<StateStore, 'read' | 'write' | 'overwrite' | 'path'>;

const STATE_FILE = 'watchdog.json';

export async function openStore(dir: string): Promise<CounterStore> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new OperationError(`host.state ${dir} cannot be created (${why(errnoCode(error))})`);
  }
  return new StateStore(dir);
}

export async function loadState(store: CounterStore, log: Log): Promise<WatchdogState> {
  const read = await store.read(STATE_FILE, watchdogStateSchema);
  if (read.problem)
    log.emit({
      level: 'warn',
      event: 'watchdog.state',
      message: `${read.problem}; starting with fresh counters`,
    });
  if (!read.value) {
    if (!read.problem)
      log.emit({
        level: 'info',
        event: 'watchdog.started',
        message: 'watchdog started: no counters yet',
      });
    return freshState();
  }
  return read.value;
}

export interface SaveFailure {
  /** what the tick ends with, once its restarts are done */
  readonly error: OperationError;
  /** the counters were written after all, in place (a full file system) */
  readonly inPlace: boolean;
}

/**
 * Through temp file + rename; on a full file system (the default host.state is
 * on /run, a small shared tmpfs) over the old file in place, which needs no
 * new block. Never throws: a tick that cannot save must still restart.
 */
export async function saveState(
  store: CounterStore,
  state: WatchdogState,
): Promise<SaveFailure | undefined> {
  let code: string;
  try {
    await store.write(STATE_FILE, state);
    return undefined;
  } catch (error) {
    code = errnoCode((error as { cause?: unknown }).cause ?? error);
  }
  const file = store.path(STATE_FILE);
  if (code === 'ENOSPC' || code === 'EDQUOT') {
    const inPlace = await store.overwrite(STATE_FILE, state).then(
      () => true,
      () => false,
    );
    const then = inPlace
      ? 'the counters were written over the old file in place instead'
      : 'the counters are not saved; dead services are still restarted, each recorded in audit.jsonl first, which bounds them';
    return {
      error: new OperationError(
        `cannot write ${file} (${code}: host.state is full; free space on it, or move host.state off the small shared tmpfs under /run): ${then}`,
      ),
      inPlace,
    };
  }
  return { error: new OperationError(`cannot write ${file} (${why(code)})`), inPlace: false };
}

export async function saveOrThrow(store: CounterStore, state: WatchdogState): Promise<void> {
  const failed = await saveState(store, state);
  if (failed) throw failed.error;
}

function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | null)?.code ?? 'write failed';
}

/** what the operator does about it: the default host.state is on /run, a small shared tmpfs */
function why(code: string): string {
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `${code}: it is full`;
    case 'EROFS':
      return `${code}: host.state is on a read-only file system`;
    default:
      return `${code}; is host.state on a read-only file system?`;
  }
}
