import { describeLease, type LeaseRecord } from '../protocol/lease.js';
import type { LeaseView } from '../rollout/lease/store.js';
import { formatMs } from '../timing/duration.js';

/** The fleet lease as `deploy status` shows it: one holder, or why there are several. */
export interface LeaseSummary {
  readonly held: boolean;
  readonly lease?: LeaseRecord & { readonly heartbeatAgeMs: number; readonly expired: boolean };
  /** where the holder's pieces are */
  readonly on: readonly string[];
  /** pieces of another holder (a deployer mid-take, a leftover) */
  readonly others: readonly { readonly where: string; readonly lease: LeaseRecord }[];
  readonly problems: readonly { readonly where: string; readonly problem: string }[];
  /** hosts whose piece could not be read: they are down (status names why, once) */
  readonly unreachable: readonly string[];
}

export function summarizeLease(views: readonly LeaseView[]): LeaseSummary {
  const held = views.filter((v) => v.lease);
  // the holder is whoever has the most pieces (the first host's on a tie)
  const counts = new Map<string, number>();
  for (const v of held) counts.set(v.lease?.id ?? '', (counts.get(v.lease?.id ?? '') ?? 0) + 1);
  const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
  const mine = held.filter((v) => v.lease?.id === top);
  const first = mine[0];
  const age = Math.min(...mine.map((v) => v.ageMs ?? 0));
  return {
    held: first?.lease !== undefined,
    ...(first?.lease && {
      lease: { ...first.lease, heartbeatAgeMs: age, expired: age > first.lease.ttlMs },
    }),
    on: mine.map((v) => v.where),
    others: held
      .filter((v) => v.lease?.id !== top)
      .map((v) => ({ where: v.where, lease: v.lease as LeaseRecord })),
    problems: views.flatMap((v) => (v.problem ? [{ where: v.where, problem: v.problem }] : [])),
    unreachable: views.flatMap((v) => (v.unreachable ? [v.where] : [])),
  };
}

/** `fleet lease: held by deploy rollout r7 by alice@laptop pid 42, heartbeat 1.2s ago (web-1, web-2)` */
export function renderLease(s: LeaseSummary): string[] {
  const lines = [
    s.lease
      ? `fleet lease: held by ${describeLease(s.lease)} since ${s.lease.started}, heartbeat ${formatMs(s.lease.heartbeatAgeMs)} ago${s.lease.expired ? ' (EXPIRED: the next deploy takes it over)' : ''} (${s.on.join(', ')})`
      : 'fleet lease: free',
  ];
  if (s.unreachable.length > 0)
    lines[0] += ` (not read on ${s.unreachable.join(', ')}: unreachable)`;
  for (const o of s.others)
    lines.push(`fleet lease: ${o.where} has a piece of ${describeLease(o.lease)}`);
  for (const p of s.problems) lines.push(`fleet lease: ${p.where}: ${p.problem}`);
  return lines;
}
