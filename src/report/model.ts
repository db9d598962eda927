/**
 * What `deploy report` draws: a rollout as read back from its `--json` stream
 * or from the hosts' audit lines. Times are ms since the rollout started.
 */
export interface ReportStep {
  readonly step: string;
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly ok: boolean;
  /** a balancer wait's bound, from the timing model */
  readonly boundMs?: number;
  readonly detail?: string;
  /** through several balancers: ms until each one agreed, null when it did not */
  readonly balancers?: Readonly<Record<string, number | null>>;
}

export interface ReportFigures {
  readonly requests: number;
  readonly failed: number;
  readonly reset?: string;
  readonly unread?: string;
}

export interface ReportHost {
  readonly host: string;
  /** deployed, rolled-back, failed, interrupted; absent when the stream ended before a result */
  readonly result?: string;
  readonly steps: readonly ReportStep[];
  readonly error?: string;
  readonly leftDrained?: boolean;
  readonly receipt?: ReportFigures;
  /** its handshake back during rollout.on_failure rollback */
  readonly rollback?: readonly ReportStep[];
}

export interface ReportJudgement {
  readonly kind: string;
  readonly hosts: readonly string[];
  readonly passed: boolean;
  readonly reason: string;
}

export interface Report {
  readonly release: string;
  /** absent: the stream had no result line (cut short) */
  readonly ok?: boolean;
  readonly elapsedMs: number;
  /** hosts by wave, in order; one wave of every host when the source says none */
  readonly waves: readonly (readonly string[])[];
  readonly hosts: readonly ReportHost[];
  readonly notReached: readonly string[];
  readonly judgements: readonly ReportJudgement[];
  readonly receipt?: { readonly source: string; readonly total: ReportFigures };
  /** why the rollout stopped, when it says */
  readonly errors: readonly string[];
  /** where it came from: 'the --json stream' or 'the audit' */
  readonly source: string;
  /** the ISO time of its first line, when known */
  readonly started?: string;
}
