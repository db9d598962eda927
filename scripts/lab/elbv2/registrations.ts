import type { Registration } from './target-health.js';

/** A target as a request names it: `TargetDescription` (Id, and Port when given). */
export interface NamedTarget {
  readonly Id: string;
  readonly Port?: number;
}

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/**
 * The group's registrations, keyed as AWS keys them: (Id, Port). Pure: it
 * says which HAProxy server a change concerns and the group tells HAProxy.
 *
 * Elastic Load Balancing API Reference (2015-12-01):
 * - RegisterTargets: "By default, the load balancer routes requests to
 *   registered targets using the protocol and port for the target group.
 *   Alternatively, you can override the port for a target when you register
 *   it. You can register each EC2 instance or IP address with the same target
 *   group multiple times using different ports." A target named without a
 *   port is the group's port.
 * - DeregisterTargets, Targets: "If you specified a port override when you
 *   registered a target, you must specify both the target ID and the port
 *   when you deregister it." and "If the specified target does not exist, the
 *   action returns successfully."
 * - RegisterTargets / DeregisterTargets, Errors: InvalidTarget "The specified
 *   target does not exist, is not in the same VPC as the target group" — the
 *   lab's VPC holds its hosts' addresses and nothing else.
 * - TargetHealth, Reason: `Target.NotRegistered` "The target is not
 *   registered with the target group" (state `unused`), which is what
 *   DescribeTargetHealth says of a named target that is not registered.
 */
export class Registrations {
  private readonly table = new Map<string, Registration>();

  constructor(
    /** the group's `Port`: the port of a target named without one */
    public groupPort: number,
    /** the HAProxy server of a host's address on the port it listens on; undefined: none */
    private readonly serverOf: (id: string, port: number) => string | undefined,
    /** whether the lab's VPC has this address */
    private readonly inVpc: (id: string) => boolean,
  ) {}

  /** The registration key of a named target: its port, else the group's. */
  keyOf(t: NamedTarget): { id: string; port: number } {
    if (!this.inVpc(t.Id))
      throw new ApiError(
        'InvalidTarget',
        `The following targets are not in the target group's VPC: '${t.Id}'`,
      );
    return { id: t.Id, port: t.Port ?? this.groupPort };
  }

  get(t: NamedTarget): Registration | undefined {
    const { id, port } = this.keyOf(t);
    return this.table.get(`${id}:${port}`);
  }

  all(): Registration[] {
    return [...this.table.values()];
  }

  /**
   * The registration RegisterTargets makes, or undefined when the (Id, Port)
   * is registered already: registering it again changes nothing, health
   * included.
   */
  register(t: NamedTarget, now: number): Registration | undefined {
    const { id, port } = this.keyOf(t);
    const key = `${id}:${port}`;
    const had = this.table.get(key);
    if (had?.registered) return undefined;
    if (had) {
      // registered again while draining: the same registration, so the drain's timer sees it back
      had.registered = true;
      had.registeredAt = now;
      had.seenUp = false;
      had.maint = false;
      delete had.deregisteredAt;
      return had;
    }
    const server = this.serverOf(id, port);
    const reg: Registration = {
      id,
      port,
      ...(server !== undefined && { server }),
      registered: true,
      registeredAt: now,
      seenUp: false,
    };
    this.table.set(key, reg);
    return reg;
  }

  /** The registration DeregisterTargets starts draining; undefined: none (a success all the same). */
  deregister(t: NamedTarget, now: number): Registration | undefined {
    const reg = this.get(t);
    if (!reg?.registered) return undefined;
    reg.registered = false;
    reg.deregisteredAt = now;
    return reg;
  }

  /** A finished deregistration is forgotten: DescribeTargetHealth lists it no more. */
  forget(reg: Registration): void {
    const key = `${reg.id}:${reg.port}`;
    if (this.table.get(key) === reg && !reg.registered) this.table.delete(key);
  }
}
