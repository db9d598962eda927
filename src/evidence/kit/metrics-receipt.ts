import { ExitCode, type HandoffError } from '../../errors.js';
import type { Receipt } from './figures.js';

/**
 * A receipt read afterwards from the figures a balancer's provider keeps per
 * minute (`BalancerKind.metricsReceipt`): one figure for the rollout in all,
 * over whole minutes, provisional while the provider may still add to them.
 */
export interface MetricsReceipt extends Receipt {
  /** the whole minutes the figures cover, ISO */
  readonly window: { readonly from: string; readonly to: string };
  /** false while the provider may still add to them (it publishes late) */
  readonly final: boolean;
  readonly note: string;
}

/** What reads a metrics receipt, its clients loaded ahead when asked. */
export interface MetricsReader {
  /**
   * Load now what `receipt` needs (an SDK, its clients, what names each
   * balancer's figures), while the rollout only waits (its last wave's
   * overlap): not after its last step. What fails here is said by `receipt`.
   */
  warm(): void;
  /** What its balancers saw over [from, to]; undefined when the run has none of them. The clients end with it. */
  receipt(from: number, to: number): Promise<MetricsReceipt | undefined>;
}

/** what made each unread receipt unread, kept out of its JSON */
const unreadBy = new WeakMap<MetricsReceipt, HandoffError>();

/** `receipt` is unread because of `error`: unreadExit answers its exit code. */
export function unreadFor(receipt: MetricsReceipt, error: HandoffError): MetricsReceipt {
  unreadBy.set(receipt, error);
  return receipt;
}

/**
 * The exit code an unread receipt stands for: its error's (a setting missing
 * from deploy.yml is 2, access denied 3, throttling 1), not one for all.
 */
export function unreadExit(receipt: MetricsReceipt): ExitCode {
  return unreadBy.get(receipt)?.exitCode ?? ExitCode.blocked;
}
