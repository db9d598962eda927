import type { Clock } from '../clock.js';
import { OperationError, UsageError } from '../errors.js';
import { runProcess } from '../process/run.js';
import { formatMs } from '../timing/duration.js';
import type { Counts, WindowCounts } from './kit/counts.js';
import type { CountWindow, EvidenceSource } from './kit/source.js';
import { excerpt } from '../safe-text.js';

export interface CommandSourceOptions {
  /** rollout.canary.command, resolved beside deploy.yml */
  readonly file: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly service: string;
  /** host name → balancer target */
  readonly targets: ReadonlyMap<string, string>;
  readonly clock: Clock;
}

const shape = '{"requests": N, "errors": N} (and optionally "latency_ms": N)';

/**
 * A user's command that knows the counts (Prometheus, CloudWatch Logs,
 * Datadog …): run once per host and read, as argv (no shell), with
 * HANDOFF_HOST, HANDOFF_TARGET, HANDOFF_FROM and HANDOFF_TO (ISO 8601) set;
 * it prints one JSON object. A command that fails, hangs past its timeout or
 * prints anything else is bad input, said in one line naming the host.
 */
export class CommandCountSource implements EvidenceSource {
  readonly kind = 'command';
  readonly label: string;

  constructor(private readonly options: CommandSourceOptions) {
    this.label = options.file;
  }

  open(): Promise<CountWindow> {
    const openedAt = this.options.clock.now();
    return Promise.resolve({
      openedAt,
      read: async (signal) => {
        const to = this.options.clock.now();
        const out = new Map<string, WindowCounts>();
        for (const [host, target] of this.options.targets)
          out.set(host, {
            kind: 'counted',
            counts: await this.run(host, target, openedAt, to, signal),
          });
        return out;
      },
    });
  }

  private async run(
    host: string,
    target: string,
    from: number,
    to: number,
    signal?: AbortSignal,
  ): Promise<Counts> {
    const o = this.options;
    const result = await runProcess([o.file], {
      cwd: o.cwd,
      env: {
        HANDOFF_SERVICE: o.service,
        HANDOFF_HOST: host,
        HANDOFF_TARGET: target,
        HANDOFF_FROM: new Date(from).toISOString(),
        HANDOFF_TO: new Date(to).toISOString(),
      },
      extendEnv: true,
      timeoutMs: o.timeoutMs,
      clock: o.clock,
      maxBuffer: 64 * 1024,
      ...(signal && { signal }),
    });
    const said = `canary command ${o.file} for ${host}`;
    if (!result.started) throw new UsageError(`${said} could not run: ${result.why}`);
    if (result.timedOut)
      throw new OperationError(
        `${said} did not finish within command_timeout ${formatMs(o.timeoutMs)}`,
      );
    if (result.code !== 0) {
      const why = excerpt(result.stderr, 160);
      throw new UsageError(`${said} exited ${result.code}${why ? `: ${why}` : ''}`);
    }
    return parseCommandCounts(result.stdout, said);
  }
}

export function parseCommandCounts(stdout: string, said: string): Counts {
  const shown = JSON.stringify(excerpt(stdout, 80));
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    throw new UsageError(`${said} printed ${shown}, not JSON: print ${shape}`);
  }
  const v = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  if (!whole(v.requests) || !whole(v.errors))
    throw new UsageError(`${said} printed ${shown}: print ${shape}, whole numbers`);
  if (v.errors > v.requests)
    throw new UsageError(`${said} printed more errors (${v.errors}) than requests (${v.requests})`);
  const latency = v.latency_ms;
  if (latency !== undefined && (typeof latency !== 'number' || !(latency >= 0)))
    throw new UsageError(
      `${said} printed latency_ms ${JSON.stringify(latency)}: a number of ms, or leave it out`,
    );
  return {
    requests: v.requests,
    failed: v.errors,
    ...(typeof latency === 'number' && { latencyMs: latency }),
  };
}
