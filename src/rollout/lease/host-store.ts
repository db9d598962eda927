import type { HostAgent } from '../../agent-client/host-agent.js';
import type { HostConfig } from '../../config/types.js';
import { BlockedError, HandoffError, HostUnreachableError, hostError } from '../../errors.js';
import type { LeaseAction, LeaseAnswer, LeaseRequest } from '../../protocol/lease.js';
import type { HeldPiece, LeaseRenew, LeaseStore, LeaseTake, LeaseView } from './store.js';

/**
 * The default store: a piece on every host of deploy.yml (all of them, not
 * only `--hosts`), `host.state/lease.json`, through the agent's `lease`
 * operation. Pieces are taken one at a time in one global order, the sorted
 * host names, so two deployers never each hold half the fleet waiting for
 * the other: whoever takes the first host goes on, the other is refused there.
 */
export class HostLeaseStore implements LeaseStore {
  private readonly hosts: readonly HostConfig[];

  constructor(
    hosts: readonly HostConfig[],
    private readonly agentOf: (host: HostConfig) => Promise<HostAgent>,
  ) {
    this.hosts = [...hosts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async take(request: LeaseRequest): Promise<LeaseTake> {
    const taken: HostConfig[] = [];
    const tookOver: HeldPiece[] = [];
    try {
      for (const host of this.hosts) {
        const answer = await this.call(host, 'take', request);
        if (!answer.ok && answer.lease) {
          await this.giveBack(taken, request);
          return { ok: false, holder: piece(host, answer) };
        }
        taken.push(host);
        if (answer.tookOver)
          tookOver.push({ where: host.name, lease: answer.tookOver, ageMs: answer.tookOver.ageMs });
      }
    } catch (error) {
      await this.giveBack(taken, request);
      if (error instanceof UnreachableHost) throw await this.allUnreachable(error, taken.length);
      throw error;
    }
    return { ok: true, tookOver };
  }

  async renew(request: LeaseRequest): Promise<LeaseRenew> {
    const unreachable: string[] = [];
    let lost: LeaseRenew | undefined;
    await Promise.all(
      this.hosts.map(async (host) => {
        try {
          const answer = await this.call(host, 'renew', request);
          if (!answer.ok)
            lost ??= {
              ok: false,
              where: host.name,
              ...(answer.lease ? { holder: piece(host, answer) } : {}),
            };
        } catch {
          // it expires there after its bound unless the next renewal reaches it
          unreachable.push(host.name);
        }
      }),
    );
    return lost ?? { ok: true, unreachable };
  }

  async release(request: LeaseRequest): Promise<void> {
    await this.giveBack(this.hosts, request);
  }

  read(): Promise<readonly LeaseView[]> {
    return this.readEach(this.hosts);
  }

  private readEach(hosts: readonly HostConfig[]): Promise<LeaseView[]> {
    return Promise.all(
      hosts.map(async (host): Promise<LeaseView> => {
        try {
          const answer = await this.call(host, 'read');
          return answer.lease
            ? { where: host.name, lease: answer.lease, ageMs: answer.ageMs ?? 0 }
            : { where: host.name };
        } catch (error) {
          return error instanceof UnreachableHost
            ? { where: host.name, unreachable: error.reason }
            : { where: host.name, problem: hostError(host.name, error) };
        }
      }),
    );
  }

  /**
   * A take stopped at an unreachable host names every one that is down, one
   * line per host as preflight would, not one host per attempt: the hosts
   * after it are asked too (a read, nothing taken).
   */
  private async allUnreachable(first: UnreachableHost, reached: number): Promise<BlockedError> {
    const rest = this.hosts.slice(reached + 1);
    const views = await this.readEach(rest);
    const down = [
      { where: first.host, reason: first.reason },
      ...views.flatMap((v) => (v.unreachable ? [{ where: v.where, reason: v.unreachable }] : [])),
    ];
    return new BlockedError(
      [
        ...down.map((d) => `preflight: ${d.where}: ${d.reason}`).sort(),
        'the fleet lease covers every host of deploy.yml and is never partial: fix those hosts or remove them from deploy.yml',
      ].join('\n'),
    );
  }

  private async giveBack(hosts: readonly HostConfig[], request: LeaseRequest): Promise<void> {
    await Promise.allSettled(hosts.map((h) => this.call(h, 'release', request)));
  }

  private async call(
    host: HostConfig,
    action: LeaseAction,
    request?: LeaseRequest,
  ): Promise<LeaseAnswer> {
    let agent: HostAgent;
    try {
      agent = await this.agentOf(host);
    } catch (error) {
      throw new UnreachableHost(host.name, error);
    }
    if (!agent.lease)
      throw new BlockedError(`${host.name}: its agent keeps no fleet lease; run 'deploy setup'`);
    try {
      return await agent.lease(action, request);
    } catch (error) {
      // the agent's own word (a garbage piece, a newer version) stands as it is
      if (error instanceof HandoffError && !(error instanceof HostUnreachableError)) throw error;
      throw new UnreachableHost(host.name, error);
    }
  }
}

/** A host whose piece could not be reached: refused as exit 3, named once. */
class UnreachableHost extends BlockedError {
  readonly reason: string;

  constructor(
    readonly host: string,
    error: unknown,
  ) {
    const reason = hostError(host, error);
    super(
      `${host}: cannot take the fleet lease there (${reason}); the lease covers every host of deploy.yml and is never partial: fix ${host} or remove it from deploy.yml`,
    );
    this.reason = reason;
  }
}

function piece(host: HostConfig, answer: LeaseAnswer): HeldPiece {
  if (!answer.lease) throw new Error('piece of an answer without a lease');
  return { where: host.name, lease: answer.lease, ageMs: answer.ageMs ?? 0 };
}
