import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import type { Log } from '../log.js';
import { formatMs } from '../timing/duration.js';
import { bake, type BakeOutcome, type BakeProgress } from './bake.js';
import { rate, settle, type Side } from './canary-rule.js';
import type { EvidenceDeps } from './create-source.js';

export type JudgedKind = 'canary' | 'bake' | 'watch';

export interface JudgedWave extends BakeOutcome {
  readonly kind: JudgedKind;
  /** the hosts judged */
  readonly hosts: readonly string[];
}

export interface WaveJudgeDeps {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
  readonly signal: AbortSignal;
  readonly evidence: EvidenceDeps;
}

/**
 * What follows a wave that deployed: the canary's bake after the first
 * wave, `rollout.bake` after a later one, `rollout.watch` after the last.
 * The hosts judged are every host on the new release; the baseline is the
 * hosts still on the old one, over the same window. The watch has no such
 * hosts left: it compares with the baseline the last bake measured (the
 * fleet's rate before the rollout reached it), and is skipped, said, when
 * there was no bake to measure one.
 */
export class WaveJudge {
  private measured: Side | undefined;

  constructor(private readonly deps: WaveJudgeDeps) {}

  async afterWave(o: {
    readonly index: number;
    readonly canary: boolean;
    readonly deployed: readonly string[];
    readonly rest: readonly string[];
  }): Promise<JudgedWave | undefined> {
    const r = this.deps.config.rollout;
    const last = o.rest.length === 0;
    const kind: JudgedKind = o.index === 0 && o.canary ? 'canary' : last ? 'watch' : 'bake';
    const ms =
      kind === 'canary' ? (r.canary?.bake ?? 0) : kind === 'bake' ? (r.bake ?? 0) : (r.watch ?? 0);
    if (ms <= 0) return undefined;
    const baseline = kind === 'watch' ? this.measured : o.rest;
    if (baseline === undefined) {
      this.say(
        'warn',
        `rollout.watch skipped: no bake measured the error rate before the rollout to compare with`,
      );
      return undefined;
    }
    const j = this.deps.config.rollout.judgement;
    if (j === undefined) return undefined;
    const found = this.deps.evidence.judgement();
    if ('missing' in found) {
      // a judgement that cannot read its counts is not a pass: inconclusive, as configured
      const none = { errors: 0, requests: 0 };
      const verdict = settle(
        { verdict: 'inconclusive', reason: `the counts cannot be read: ${found.missing}` },
        j.inconclusive,
      );
      const outcome = { ...verdict, canary: none, baseline: none, early: false, elapsedMs: 0 };
      return this.judged(kind, o.deployed, outcome, 'warn');
    }
    this.say(
      'info',
      `${kind} ${formatMs(ms)}: ${o.deployed.join(', ')} judged against ${Array.isArray(baseline) ? baseline.join(', ') : 'the rate before the rollout'} (${found.source.label})`,
    );
    const outcome = await bake({
      source: found.source,
      canary: o.deployed,
      baseline,
      durationMs: ms,
      judgement: j,
      clock: this.deps.clock,
      signal: this.deps.signal,
      onProgress: (p) => this.progress(kind, p),
    });
    if (Array.isArray(baseline)) this.measured = outcome.baseline;
    return this.judged(kind, o.deployed, outcome);
  }

  /** One look of a bake, said: the rates so far, and a host not read at it. */
  private progress(kind: JudgedKind, p: BakeProgress): void {
    const judged = kind === 'canary' ? 'canary' : 'new release';
    this.deps.log.emit({
      // a host not read at a look (counts no service could write included) is news
      level: p.unread === undefined ? 'info' : 'warn',
      event: 'bake',
      message: `${kind}: ${judged} ${rate(p.canary)}, baseline ${rate(p.baseline)}; ${formatMs(p.leftMs)} left${p.unread !== undefined ? ` (not read: ${p.unread})` : ''}`,
      fields: {
        kind,
        elapsedMs: p.elapsedMs,
        leftMs: p.leftMs,
        readMs: Math.round(p.readMs),
        canary: p.canary,
        baseline: p.baseline,
        ...(p.unread !== undefined && { unread: p.unread }),
      },
    });
  }

  /** The verdict said (at `passedLevel` when it passed, at ERROR when not) and returned. */
  private judged(
    kind: JudgedKind,
    hosts: readonly string[],
    outcome: BakeOutcome,
    passedLevel: 'info' | 'warn' = 'info',
  ): JudgedWave {
    this.say(
      outcome.passed ? passedLevel : 'error',
      `${kind} ${outcome.passed ? 'passed' : 'failed'}: ${outcome.reason}`,
    );
    return { kind, hosts, ...outcome };
  }

  private say(level: 'info' | 'warn' | 'error', message: string): void {
    this.deps.log.emit({ level, event: 'judgement', message });
  }
}
