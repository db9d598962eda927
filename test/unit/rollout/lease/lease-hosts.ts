import path from 'node:path';
import type { HostAgent } from '../../../../src/agent-client/host-agent.js';
import type { HostConfig } from '../../../../src/config/types.js';
import { HostUnreachableError } from '../../../../src/errors.js';
import { leaseAction } from '../../../../src/host/lease-file.js';
import type { LeaseAction, LeaseRequest } from '../../../../src/protocol/lease.js';
import type { FakeClock } from '../../../support/fake-clock.js';

/**
 * Hosts whose agents keep their lease pieces with the agent's own code
 * (host/lease-file.ts), each in its own directory: the fake is the transport.
 */
export class LeaseHosts {
  readonly calls: string[] = [];
  readonly down = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly clock: FakeClock,
  ) {}

  stateOf(host: string): string {
    return path.join(this.dir, host);
  }

  /** `open web-1`, `close web-1`: the sessions the store opened and closed */
  readonly sessions: string[] = [];
  /** the fleet is larger than ssh.max_connections: the agents open no session */
  sessionless = false;

  agentOf = (host: HostConfig): Promise<HostAgent> =>
    Promise.resolve({
      host: host.name,
      openSession: () => {
        if (this.sessionless) return Promise.resolve();
        this.sessions.push(`open ${host.name}`);
        return this.down.has(host.name)
          ? Promise.reject(
              new HostUnreachableError(host.name, 'connection refused', { network: true }),
            )
          : Promise.resolve();
      },
      close: () => void this.sessions.push(`close ${host.name}`),
      run: (op: string, args: { action: LeaseAction; lease?: string }) => {
        if (op !== 'lease') return Promise.reject(new Error(`the lease fake answers no ${op}`));
        const { action } = args;
        const request =
          args.lease === undefined ? undefined : (JSON.parse(args.lease) as LeaseRequest);
        this.calls.push(`${host.name} ${action}${request ? ` ${request.id}` : ''}`);
        if (this.down.has(host.name))
          return Promise.reject(
            new HostUnreachableError(host.name, 'connection refused', { network: true }),
          );
        return leaseAction(this.stateOf(host.name), this.clock, action, request);
      },
    } as unknown as HostAgent);
}

export const holder = { user: 'alice', host: 'laptop', pid: 42 };

export function request(id: string, release = 'r7', command = 'rollout'): LeaseRequest {
  return { id, holder, command, release };
}
