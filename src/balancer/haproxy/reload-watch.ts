import type { BalancerDeps } from '../balancer.js';

/** What `show info` says of the process answering the socket. */
export interface ProcessInfo {
  readonly pid: number;
  readonly uptimeSec: number;
}

export function parseShowInfo(text: string): ProcessInfo | undefined {
  const field = (name: string): number | undefined => {
    const m = new RegExp(`^${name}:\\s*(\\d+)\\s*$`, 'm').exec(text);
    return m?.[1] === undefined ? undefined : Number(m[1]);
  };
  const pid = field('Pid');
  const uptimeSec = field('Uptime_sec');
  return pid === undefined || uptimeSec === undefined ? undefined : { pid, uptimeSec };
}

/**
 * What `Uptime_sec` may fall short of the time between two looks for the same
 * process: whole seconds, and each look timed when its answer arrived (a
 * slow SSH read). A spurious reload only puts held states back again.
 */
const UPTIME_SLACK_SEC = 5;

/**
 * A new process (reload, restart) answers: another pid, an uptime that went
 * back, or one that grew less than the time between the looks — a container
 * restarted keeps its pid (HAProxy as its pid 1), and one that restarted
 * soon after a look may be up longer than it was then, yet not since then.
 */
export function reloaded(before: ProcessInfo, now: ProcessInfo, elapsedMs = 0): boolean {
  if (before.pid !== now.pid || now.uptimeSec < before.uptimeSec) return true;
  return now.uptimeSec < before.uptimeSec + elapsedMs / 1000 - UPTIME_SLACK_SEC;
}

export interface ReloadWatchOptions {
  readonly info: () => Promise<ProcessInfo | undefined>;
  /** put back every runtime state handoff set; called once per reload seen */
  readonly reassert: (before: ProcessInfo, now: ProcessInfo) => Promise<void>;
  /** how often to look while a state is held (between a deregister and its register) */
  readonly everyMs: number;
}

/**
 * HAProxy forgets `set server … state` on a reload unless it loads a
 * server-state file, and the drained server is back in rotation mid-stop.
 * While handoff holds a state, this looks at the process every `everyMs`
 * (and on every call of check()), and puts the states back the moment
 * another process answers.
 */
export class ReloadWatch {
  private last: { info: ProcessInfo; at: number } | undefined;
  private loop: AbortController | undefined;
  private looking: Promise<void> | undefined;

  constructor(
    private readonly options: ReloadWatchOptions,
    private readonly deps: BalancerDeps | undefined,
  ) {}

  /** one look at a time: the background watch and a poll must not both put a state back */
  check(): Promise<void> {
    this.looking ??= this.look(this.options.info().catch(() => undefined));
    return this.looking;
  }

  /**
   * A look whose `show info` goes on another read's connection (the states
   * read sends it with its own commands). `read` starts only once no look is
   * under way, so an info older than the last one looked at is never taken
   * for a reload, and a check() meanwhile shares this look. A read that
   * fails is the caller's failure and, as a `show info` that fails, no look.
   */
  async checkWith<T>(
    read: () => Promise<T>,
    infoOf: (value: T) => ProcessInfo | undefined,
  ): Promise<T> {
    while (this.looking) await this.looking.catch(() => undefined);
    const reading = read();
    const look = this.look(reading.then(infoOf, () => undefined));
    this.looking = look;
    const value = await reading;
    // a reassert that failed fails the read, as it did when the look came first
    await look;
    return value;
  }

  private look(info: Promise<ProcessInfo | undefined>): Promise<void> {
    return (async () => {
      const now = await info;
      if (!now) return;
      const at = this.deps?.clock.now() ?? Date.now();
      const before = this.last;
      if (before && reloaded(before.info, now, at - before.at))
        await this.options.reassert(before.info, now);
      // only once the states are back: a reassert that failed is tried again at the next look
      this.last = { info: now, at };
    })().finally(() => (this.looking = undefined));
  }

  /** while something is held: look in the background (needs the run's clock) */
  hold(): void {
    if (this.loop || !this.deps) return;
    const loop = new AbortController();
    this.loop = loop;
    const { clock } = this.deps;
    void (async () => {
      while (!loop.signal.aborted) {
        // a socket that does not answer now may answer the next look
        await this.check().catch(() => undefined);
        try {
          await clock.sleep(this.options.everyMs, loop.signal);
        } catch {
          // aborted: the loop ends
        }
      }
    })();
  }

  release(): void {
    this.loop?.abort();
    this.loop = undefined;
  }
}
