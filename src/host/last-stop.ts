import type { LastStop } from '../protocol/results.js';
import { StateStore } from './state-store.js';

const FILE = 'last-stop.json';

const parser = {
  parse(value: unknown): LastStop {
    const v = value as Partial<LastStop> | null;
    if (
      typeof v?.at !== 'string' ||
      typeof v.release !== 'string' ||
      !Array.isArray(v.killed) ||
      !v.killed.every((k) => typeof k === 'string')
    )
      throw new Error('not a last stop');
    return { at: v.at, release: v.release, killed: v.killed };
  },
};

/**
 * Every stop of a live release records what it saw, so `deploy status` and
 * `deploy check --live` can name a service that ignores SIGTERM long after
 * the container that needed SIGKILL was replaced by the next release's.
 */
export function recordLastStop(stateDir: string, stop: LastStop): Promise<void> {
  return new StateStore(stateDir).write(FILE, stop);
}

export async function readLastStop(stateDir: string): Promise<LastStop | null> {
  return (await new StateStore(stateDir).read(FILE, parser)).value ?? null;
}
