import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface Heartbeat {
  /** touch the mark now; a worker may call it from its own loop as well */
  beat(): Promise<void>;
  stop(): void;
}

export interface HeartbeatOptions {
  readonly stateDir: string;
  /** the worker slot, e.g. `worker-1`; the mark is `<stateDir>/marks/<slot>` */
  readonly slot: string;
  readonly everyMs: number;
  /** errors of a background beat (a full tmpfs); the next beat retries */
  readonly onError?: (error: unknown) => void;
}

export function markPath(stateDir: string, slot: string): string {
  return path.join(stateDir, 'marks', slot);
}

/**
 * Touches the slot's mark every `everyMs`. The mark is written through a temp
 * file and a rename so a checker never reads a half-written timestamp, and the
 * timer is unref'd so a heartbeat never keeps a finished worker alive.
 */
export function startHeartbeat(options: HeartbeatOptions): Heartbeat {
  const target = markPath(options.stateDir, options.slot);
  let seq = 0;
  const beat = async (): Promise<void> => {
    // one temp name per beat: a slow beat and the next must not rename each other's file
    const temp = `${target}.${process.pid}.${seq++}.tmp`;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(temp, `${Date.now()}\n`);
    await rename(temp, target);
  };
  const tick = (): void => {
    beat().catch((e: unknown) => options.onError?.(e));
  };
  tick();
  const timer = setInterval(tick, options.everyMs);
  timer.unref();
  return {
    beat,
    stop: () => clearInterval(timer),
  };
}
