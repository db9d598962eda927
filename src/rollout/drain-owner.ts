import { isExpired } from '../host/drain-marker.js';
import type { DrainMarkerData } from '../protocol/results.js';

/**
 * Who a drain marker belongs to, for the next rollout. A rollout's marker
 * names its release: with nobody holding the lock, the rollout that wrote it
 * is dead (the fleet lease lets no other one run), so it is repaired whether
 * its lease has run out or not. Any other marker is an operator's (`deploy
 * drain`, or one that cannot be read): while its lease runs it is left alone,
 * the host is someone's maintenance; once the lease is over it is a leftover,
 * repaired like a rollout's.
 */
export type DrainOwner = 'rollout' | 'operator' | 'operator-expired';

export function drainOwner(marker: DrainMarkerData, now: number): DrainOwner {
  if (marker.release !== undefined) return 'rollout';
  // an unreadable `until` never expires: nothing says the maintenance is over
  return isExpired(marker, now) ? 'operator-expired' : 'operator';
}

/** `web-3 drained by deploy drain by alice@laptop until …: left alone; …` */
export function leftAloneLine(host: string, marker: DrainMarkerData): string {
  const until = marker.until ? ` until ${marker.until}` : '';
  return `${host} drained by ${marker.by}${until}: left alone; 'deploy undrain ${host}' when the work is done, or leave it out with --hosts`;
}
