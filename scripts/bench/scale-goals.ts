/** The scale bench's goals (issue 38), one place for scale.ts and scale-etcd.ts. */

export const CPU_GOAL_MS = 15;

/** the orchestrator's peak RSS: 300 MB up to 500 hosts (the first goal), 400 MB beyond (2 000) */
export function rssGoalMb(hosts: number): number {
  return hosts <= 500 ? 300 : 400;
}
