import type { FailureKind } from './counts.js';

/** One window's figures as a receipt says them: what was counted, and why it is a bound or unread. */
export interface ReceiptFigures {
  readonly requests: number;
  readonly failed: number;
  readonly kinds?: Readonly<Partial<Record<FailureKind, number>>>;
  /** the counts are a lower bound: counters reset during the window */
  readonly reset?: string;
  /** nothing could be counted */
  readonly unread?: string;
}

export interface Receipt {
  readonly source: string;
  readonly hosts: readonly ({ readonly host: string } & ReceiptFigures)[];
  readonly total: ReceiptFigures;
  /** what the figures cover and how final they are (a provider's per-minute figures) */
  readonly note?: string;
  /**
   * the balancers in front of the fleet whose share this source cannot count
   * (`internal (<kind>)`): the figures are not the rollout's in all
   */
  readonly uncounted?: readonly string[];
}
