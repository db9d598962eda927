import type { Lab } from '../../scripts/lab/index.js';

/** What the lab's HAProxy showed while a sampler ran. */
export interface RotationSample {
  /** the most servers of the backend out of rotation (not `UP`, `UP 1/2`) at one read */
  readonly maxOut: number;
  /** which servers were out, and how, at the first read that had maxOut of them */
  readonly worst: Readonly<Record<string, string>>;
  /** reads of `show stat` that answered */
  readonly samples: number;
}

export interface RotationSampler {
  /**
   * How long from now until a read finds every server serving (a fault just
   * healed: how long until the fleet is whole again); rejects after `withinMs`.
   */
  whole(withinMs: number): Promise<number>;
  stop(): Promise<RotationSample>;
}

/** `UP` and `UP 1/2` (one failed check, still sent requests) serve; anything else does not. */
const serving = (status: string): boolean => status.startsWith('UP');

/**
 * Reads the lab HAProxy's `show stat` every `everyMs` until stopped, and keeps
 * the most servers of the lab's backend it saw out of rotation at once: the
 * balancer's own view of how many hosts the rollouts took out together.
 */
export function sampleRotation(lab: Lab, everyMs = 100): RotationSampler {
  let stopped = false;
  let maxOut = 0;
  let worst: Record<string, string> = {};
  let samples = 0;
  /** waiting for a read with none out: when they started waiting */
  const waiting: { since: number; resolve: (ms: number) => void }[] = [];
  const loop = (async () => {
    while (!stopped) {
      const rows = await lab.showStat().catch(() => undefined);
      if (rows) {
        samples++;
        const out: Record<string, string> = {};
        for (const r of rows) {
          const status = r.status ?? '';
          if (r.pxname !== lab.backend || r.svname === 'FRONTEND' || r.svname === 'BACKEND')
            continue;
          if (!serving(status)) out[r.svname ?? '?'] = status;
        }
        const n = Object.keys(out).length;
        if (n > maxOut) {
          maxOut = n;
          worst = out;
        }
        if (n === 0)
          for (const w of waiting.splice(0)) w.resolve(Math.max(0, Date.now() - w.since));
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    whole: (withinMs) =>
      new Promise<number>((resolve, reject) => {
        const since = Date.now();
        const timer = setTimeout(
          () => reject(new Error(`the fleet was not whole ${withinMs} ms after the fault healed`)),
          withinMs,
        );
        waiting.push({
          since,
          resolve: (ms) => {
            clearTimeout(timer);
            resolve(ms);
          },
        });
      }),
    stop: async () => {
      stopped = true;
      await loop;
      if (samples === 0) throw new Error('the rotation sampler never read the lab HAProxy');
      return { maxOut, worst, samples };
    },
  };
}
