import { compareReleaseIds } from '../../release-id.js';
import type { LeaseHolder } from '../../protocol/lease.js';

/**
 * `rollout.superseded: skip`: a job that waited for the lease and would now
 * deploy an older release than the one the fleet just got stands down. The
 * release "just deployed" is what every host selected runs now, by its own
 * word; a fleet on mixed releases, or on an older one, is deployed as asked.
 *
 * "Older" needs an order. Git SHAs have none, so an id is never called older
 * by its characters when either looks like one: first the CI runs the fleet
 * lease recorded (a GitHub run id grows with each run a repository starts),
 * then the ids when both have one shape (`r9` < `r10`); otherwise the
 * answer is `unordered`, and the job deploys as asked.
 */

/** What this job knows to order releases by: its own CI run and the holders it waited behind. */
export interface ReleaseOrder {
  /** this job's CI run URL (its lease request's `holder.ci`) */
  readonly ci?: string | undefined;
  /** the leases this job waited behind, in order */
  readonly behind?: readonly { readonly release?: string; readonly holder: LeaseHolder }[];
}

export type Supersession =
  /** `how`: what ordered them, when not the ids themselves */
  | { readonly kind: 'superseded'; readonly by: string; readonly how?: string }
  | { readonly kind: 'unordered'; readonly reason: string };

export function supersession(
  release: string,
  live: readonly (string | null)[],
  order: ReleaseOrder = {},
): Supersession | undefined {
  const first = live[0];
  if (!first || first === release || live.some((r) => r !== first)) return undefined;
  const runs = runOrder(first, order);
  if (runs !== undefined)
    return runs.theirs > runs.ours
      ? {
          kind: 'superseded',
          by: first,
          how: `the fleet lease recorded it from CI run ${runs.theirs}, started after this run (${runs.ours})`,
        }
      : undefined;
  const ids = idOrder(release, first);
  if (typeof ids === 'string') return { kind: 'unordered', reason: ids };
  return ids < 0 ? { kind: 'superseded', by: first } : undefined;
}

/** The newer release every host runs, or undefined to deploy (also when there is no telling). */
export function supersededBy(
  release: string,
  live: readonly (string | null)[],
  order?: ReleaseOrder,
): string | undefined {
  const s = supersession(release, live, order);
  return s?.kind === 'superseded' ? s.by : undefined;
}

/** `https://github.com/acme/shop/actions/runs/123` → the repository's runs and 123 */
function runOf(url: string | undefined): { repo: string; id: number } | undefined {
  const m = url === undefined ? null : /^(.+\/actions\/runs\/)(\d+)$/.exec(url);
  return m?.[1] && m[2] ? { repo: m[1], id: Number(m[2]) } : undefined;
}

/** this job's run and the run that deployed `live`, when the lease recorded both in one repository */
function runOrder(live: string, order: ReleaseOrder): { ours: number; theirs: number } | undefined {
  const ours = runOf(order.ci);
  const holder = order.behind?.findLast((b) => b.release === live)?.holder;
  const theirs = runOf(holder?.ci);
  if (!ours || !theirs || ours.repo !== theirs.repo || ours.id === theirs.id) return undefined;
  return { ours: ours.id, theirs: theirs.id };
}

/** a git commit id, short or full: hex with at least one letter */
const GIT_SHA = /^(?=.*[a-f])[0-9a-f]{7,40}$/i;

/** `r9` and `r10` have one shape (`r#`); `9e1f00a` and `10b2c3d` do not, and are SHAs anyway */
const shape = (id: string): string => id.replace(/\d+/g, '#');

function idOrder(a: string, b: string): number | string {
  if (GIT_SHA.test(a) || GIT_SHA.test(b))
    return `${a} and ${b} look like git SHAs, which have no order, and no CI run the fleet lease recorded orders them`;
  if (shape(a) !== shape(b))
    return `${a} and ${b} differ in more than their digits, so their ids give no order`;
  return compareReleaseIds(a, b);
}
