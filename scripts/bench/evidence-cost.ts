/**
 * What the traffic evidence cost a `deploy rollout --json`, from its own
 * events: each host's `receipt` (its two reads of the counters, `read_ms`)
 * and, with a canary, each `bake` look (`read_ms`) and how far the bake ran
 * past its duration (the judgement's `elapsed_ms` against the bake asked).
 */
interface EvidenceEvent {
  readonly event?: string;
  readonly host?: string;
  readonly fields?: { readonly read_ms?: number };
}

function events(stdout: string): EvidenceEvent[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as EvidenceEvent);
}

/** the mean of each host's receipt reads, ms; NaN when there was no receipt */
export function receiptMsPerHost(stdout: string): number {
  const reads = events(stdout)
    .filter((e) => e.event === 'receipt' && e.host !== undefined)
    .map((e) => e.fields?.read_ms ?? Number.NaN);
  return reads.length === 0 ? Number.NaN : reads.reduce((a, b) => a + b, 0) / reads.length;
}

export interface BakeCost {
  readonly looks: number;
  readonly readMs: number;
}

export function bakeCost(stdout: string): BakeCost {
  const looks = events(stdout).filter((e) => e.event === 'bake');
  return { looks: looks.length, readMs: looks.reduce((n, e) => n + (e.fields?.read_ms ?? 0), 0) };
}
