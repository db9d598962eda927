import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { resolveMarksDir } from './marks-dir.js';
import { isSlotMark } from './read-marks.js';

export interface Heartbeat {
  /** touch the mark now: call it from the worker's own loop, once per job or round */
  beat(): Promise<void>;
  stop(): void;
}

export interface HeartbeatOptions {
  /** the marks directory; default HANDOFF_MARKS_DIR, else `<stateDir>/marks` */
  readonly dir?: string;
  /** host.state; default HANDOFF_STATE */
  readonly stateDir?: string;
  /** the worker slot, `worker-<n>` (readers count no other name); the mark is `<dir>/<slot>` */
  readonly slot: string;
  /** how often the timer asks `healthy`; only used with it */
  readonly everyMs: number;
  /**
   * The worker's own in-memory verdict (its loop's last round was recent).
   * Without it, only `beat()` refreshes the mark: a timer that touched it
   * unconditionally would keep a hung job loop looking alive.
   */
  readonly healthy?: () => boolean;
  /** errors of a background beat (a full tmpfs); the next beat retries */
  readonly onError?: (error: unknown) => void;
}

export function markPath(stateDir: string, slot: string): string {
  return path.join(stateDir, 'marks', slot);
}

/**
 * Writes `target` through a temp file and a rename so a reader never sees a
 * half-written file. The temp name starts with a dot: readers skip dot files,
 * and one left behind by a worker killed mid-write must not count as a slot.
 */
export async function writeAtomically(target: string, contents: string): Promise<void> {
  // unique per write: two slots of one process, or a slow beat and the next, must not
  // rename each other's temp file
  const unique = `${process.pid}.${randomBytes(6).toString('hex')}`;
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${unique}.tmp`);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(temp, contents);
  await rename(temp, target);
}

/**
 * Keeps the slot's mark fresh while the worker says it is healthy. The timer
 * is unref'd so a heartbeat never keeps a finished worker alive.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  if (!isSlotMark(options.slot))
    throw new RangeError(
      `startHeartbeat: slot ${JSON.stringify(options.slot)} is not worker-<n> (n from 1): readers would never count it`,
    );
  const target = path.join(resolveMarksDir(options), options.slot);
  const beat = (): Promise<void> => writeAtomically(target, `${Date.now()}\n`);
  const { healthy } = options;
  if (!healthy) return { beat, stop: () => undefined };
  const tick = (): void => {
    if (healthy()) beat().catch((e: unknown) => options.onError?.(e));
  };
  tick();
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  return { beat, stop: () => clearInterval(timer) };
}
