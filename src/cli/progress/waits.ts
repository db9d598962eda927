import type { LogEvent } from '../../log.js';
import { formatMs } from '../../timing/duration.js';
import { BOUNDED_STEPS } from '../../timing/step-bounds.js';

/**
 * The steps that wait on something slow: those the timing model bounds (the
 * balancer, a drain, services stopping, verifies), and services starting
 * (within the timeline's start-verify, no bound of its own).
 */
const WAITING = new Set<string>([...BOUNDED_STEPS, 'start']);

export interface Wait {
  readonly host: string;
  readonly step: string;
  readonly startedAt: number;
  readonly boundMs?: number;
  /** when the last heartbeat (or the start) was printed */
  beatAt: number;
}

/**
 * The hosts in flight in a waiting step, read from the rollout's events
 * (`step.start`, `step`, `balancer.state`), and the balancer's latest word
 * on each host's target.
 */
export class Waits {
  private readonly byHost = new Map<string, Wait>();
  private readonly words = new Map<string, string>();

  /** true when the set of waits or a word changed */
  see(e: LogEvent, now: number): boolean {
    const host = e.host;
    if (host === undefined) return false;
    const step = typeof e.fields?.step === 'string' ? e.fields.step : undefined;
    if (e.event === 'balancer.state') {
      this.words.set(host, balancerWord(e.fields));
      return this.byHost.has(host);
    }
    if (e.event === 'step.start' && step !== undefined) {
      const had = this.byHost.delete(host);
      if (!WAITING.has(step)) return had;
      const bound = e.fields?.boundMs;
      this.byHost.set(host, {
        host,
        step,
        startedAt: now,
        beatAt: now,
        ...(typeof bound === 'number' ? { boundMs: bound } : {}),
      });
      return true;
    }
    if (e.event === 'step' && this.byHost.get(host)?.step === step) {
      this.byHost.delete(host);
      return true;
    }
    return false;
  }

  get size(): number {
    return this.byHost.size;
  }

  list(): Wait[] {
    return [...this.byHost.values()];
  }

  /** `web-2  await-out  4.1s / 10s  target draining` */
  line(w: Wait, now: number, hostWidth = w.host.length): string {
    const took = formatMs(now - w.startedAt);
    const bound = w.boundMs === undefined ? '' : ` / ${formatMs(w.boundMs)}`;
    const word = this.words.get(w.host);
    return `${w.host.padEnd(hostWidth)}  ${w.step.padEnd(9)}  ${took}${bound}${word ? `  ${word}` : ''}`;
  }
}

function balancerWord(fields: LogEvent['fields']): string {
  const state = fields?.state;
  if (typeof state !== 'string') return 'target unknown to the balancer';
  const reason = typeof fields?.reason === 'string' ? ` (${fields.reason})` : '';
  return `target ${state}${reason}`;
}
