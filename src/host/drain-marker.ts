import { writeFileAtomic } from './atomic.js';
import * as shape from './json-shape.js';
import { drainMarkerPath } from './layout.js';
import { readJsonFile, removeFile, type StateRead } from './state-store.js';

/**
 * `host.state/draining`. While the file exists, every health endpoint on the
 * host answers 503 (the health library, or a web server's one-liner that
 * only tests for the file). Its content says who drained and until when: a
 * drain is a lease, so a deploy that died mid-way is noticed — the watchdog
 * reports an expired marker at ERROR, and the next rollout repairs the host.
 * Nobody removes it blindly: a half-deployed host must not get traffic.
 */
export interface DrainMarker {
  /** who drained: `rollout 2026-11-30.1 by alice@laptop`, `deploy drain`, … */
  readonly by: string;
  /** ISO time the marker was written */
  readonly since: string;
  /** ISO time the lease expires */
  readonly until: string;
  /** the release being deployed, when a rollout drained */
  readonly release?: string;
}

export const drainMarkerSchema = shape.parser<DrainMarker>(
  shape.object({
    by: shape.nonEmptyString,
    since: shape.isoDateTime,
    until: shape.isoDateTime,
    release: shape.optional(shape.nonEmptyString),
  }),
);

/** A marker that starts now and expires after `lease` ms. */
export function newDrainMarker(options: {
  readonly by: string;
  readonly now: number;
  readonly lease: number;
  readonly release?: string;
}): DrainMarker {
  const { by, now, lease, release } = options;
  return {
    by,
    since: new Date(now).toISOString(),
    until: new Date(now + lease).toISOString(),
    ...(release === undefined ? {} : { release }),
  };
}

export async function writeDrainMarker(state: string, marker: DrainMarker): Promise<void> {
  await writeFileAtomic(drainMarkerPath(state), `${JSON.stringify(marker)}\n`);
}

/**
 * `present` is what the health endpoints see (the file exists); `value` is
 * undefined and `problem` set when the content is unreadable — the host is
 * still drained, it just cannot say by whom.
 */
export async function readDrainMarker(
  state: string,
): Promise<StateRead<DrainMarker> & { readonly present: boolean }> {
  const read = await readJsonFile(drainMarkerPath(state), drainMarkerSchema);
  return { ...read, present: read.value !== undefined || read.problem !== undefined };
}

/** true when there was a marker to remove */
export async function removeDrainMarker(state: string): Promise<boolean> {
  return removeFile(drainMarkerPath(state));
}

/** The lease has run out at `now` (ms since the epoch). */
export function isExpired(marker: DrainMarker, now: number): boolean {
  return Date.parse(marker.until) <= now;
}
