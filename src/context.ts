import type { Balancer } from './balancer/balancer.js';
import type { Clock } from './clock.js';
import type { Config, HostConfig } from './config/types.js';
import type { Log } from './log.js';
import type { Transport } from './remote/transport.js';

/**
 * No globals: `cli/main.ts` builds a Context and passes it down. Tests pass
 * fakes of these interfaces (a recording transport, a scripted balancer, a
 * fake clock).
 */
export interface Context {
  readonly config: Config;
  readonly clock: Clock;
  readonly log: Log;
  /** opens (or reuses) the transport to a host */
  transport(host: HostConfig): Promise<Transport>;
  balancer(): Promise<Balancer>;
  /** aborts on Ctrl-C / SIGTERM */
  readonly signal: AbortSignal;
}
