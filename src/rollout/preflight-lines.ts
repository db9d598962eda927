/** A host preflight could not use, and why, in the words of `hostError`. */
export interface HostProblem {
  readonly host: string;
  readonly reason: string;
}

/**
 * One `preflight: HOST: reason` line per host, sorted by host: several
 * unreachable hosts must never run together into one line, and the lease and
 * preflight must say the same thing about the same host.
 */
export function preflightLines(problems: readonly HostProblem[]): string[] {
  return problems.map((p) => `preflight: ${p.host}: ${p.reason}`).sort();
}
