import type { HostAgent } from '../../agent-client/host-agent.js';
import type { HostConfig } from '../../config/types.js';
import {
  BlockedError,
  HandoffError,
  HostUnreachableError,
  hostError,
  isNetworkUnreachable,
} from '../../errors.js';
import type { LeaseAction, LeaseAnswer, LeaseRequest } from '../../protocol/lease.js';
import type { HeldPiece, LeaseRenew, LeaseStore, LeaseTake, LeaseView } from './store.js';
import { preflightLines } from '../preflight-lines.js';

/**
 * The default store: a piece on every host of deploy.yml (all of them, not
 * only `--hosts`), `host.state/lease.json`, through the agent's `lease`
 * operation. The first piece, on the first host in one global order (the
 * sorted host names), is taken alone: whoever has it goes on, and any other
 * deployer is refused there holding nothing, so two never each hold half the
 * fleet waiting for the other. The rest are then taken at once. Each host's
 * agent keeps a session open from the take to the release (where the fleet
 * allows sessions, ssh.max_connections), so a take, a renewal and a release
 * are a line on an open channel, not a process started on the host.
 */
export class HostLeaseStore implements LeaseStore {
  private readonly hosts: readonly HostConfig[];
  private readonly agents = new Map<string, Promise<HostAgent>>();
  /** hosts the network did not reach at the take (skipUnreachable), with why: no piece held there */
  private readonly skipped = new Map<string, string>();
  /** hosts whose session did not open for a network reason: under skipUnreachable, not asked again */
  private readonly down = new Map<string, UnreachableHost>();

  constructor(
    hosts: readonly HostConfig[],
    private readonly agentOf: (host: HostConfig) => Promise<HostAgent>,
    /**
     * rollout.unreachable's store: a host the network does not reach is left
     * out of the lease (the first reachable host takes the first piece alone)
     * and its piece is taken at a renewal once it answers. Safe because every
     * taker still needs every piece it can reach: two deployers' sets differ
     * by the dead hosts only, so they meet on every other piece. Whether the
     * command may go on without a host is the caller's (preflight-reach.ts).
     */
    private readonly options: { readonly skipUnreachable?: boolean } = {},
  ) {
    this.hosts = [...hosts].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The first piece, alone; under skipUnreachable the first host the network reaches takes it. */
  private async takeFirst(
    request: LeaseRequest,
  ): Promise<{ first: HostConfig; answer: LeaseAnswer; rest: HostConfig[] } | undefined> {
    for (const [i, first] of this.hosts.entries()) {
      try {
        const answer = await this.call(first, 'take', request);
        return { first, answer, rest: this.hosts.slice(i + 1) };
      } catch (error) {
        if (!(error instanceof UnreachableHost)) throw error;
        if (!this.skips(error)) throw await this.allUnreachable(error);
        this.skipped.set(first.name, error.reason);
        if (i === this.hosts.length - 1) {
          const down = [...this.skipped].map(([where, reason]) => ({ where, reason }));
          this.skipped.clear();
          throw unreachableHosts(down, 'no host of deploy.yml answers: nothing was held');
        }
      }
    }
    return undefined;
  }

  private skips(error: unknown): error is UnreachableHost {
    return (
      this.options.skipUnreachable === true && error instanceof UnreachableHost && error.network
    );
  }

  private leftOut(): { skipped?: { where: string; reason: string }[] } {
    if (this.skipped.size === 0) return {};
    return { skipped: [...this.skipped].map(([where, reason]) => ({ where, reason })) };
  }

  /** the hosts whose piece this store holds (every host, less those skipped) */
  private held(): HostConfig[] {
    return this.hosts.filter((h) => !this.skipped.has(h.name));
  }

  /**
   * A skipped host that answers again: its piece is taken now, before
   * anything touches it (a stale piece of a gone deployer is taken over as
   * at any take). A live piece of another deployer is left: that deployer
   * cannot hold the pieces this store holds, and gives it back.
   */
  private async rejoin(request: LeaseRequest): Promise<string[]> {
    const back = this.hosts.filter((h) => this.skipped.has(h.name));
    const rejoined: string[] = [];
    await Promise.all(
      back.map(async (host) => {
        this.down.delete(host.name);
        const answer = await this.call(host, 'take', request).catch(() => undefined);
        if (answer?.ok) {
          this.skipped.delete(host.name);
          rejoined.push(host.name);
        }
      }),
    );
    return rejoined;
  }

  async take(request: LeaseRequest): Promise<LeaseTake> {
    // opened by connect(); again only where one has ended since (a wait between takes)
    await this.openSessions();
    this.skipped.clear();
    const tookOver: HeldPiece[] = [];
    const took = (host: HostConfig, answer: LeaseAnswer): void => {
      if (answer.tookOver)
        tookOver.push({ where: host.name, lease: answer.tookOver, ageMs: answer.tookOver.ageMs });
    };
    const firstTake = await this.takeFirst(request);
    if (!firstTake) return { ok: true, tookOver: [] };
    const { first, answer, rest } = firstTake;
    if (!answer.ok && answer.lease) return { ok: false, holder: piece(first, answer) };
    took(first, answer);
    const taken: HostConfig[] = [first];
    const answers = await Promise.allSettled(rest.map((h) => this.call(h, 'take', request)));
    let refusedBy: HeldPiece | undefined;
    const failures: unknown[] = [];
    answers.forEach((r, i) => {
      const host = rest[i] as HostConfig;
      if (r.status === 'rejected') {
        if (this.skips(r.reason)) this.skipped.set(host.name, r.reason.reason);
        else failures.push(r.reason);
      } else if (!r.value.ok && r.value.lease) refusedBy ??= piece(host, r.value);
      else {
        taken.push(host);
        took(host, r.value);
      }
    });
    if (refusedBy === undefined && failures.length === 0 && this.isMajority(taken.length))
      return { ok: true, tookOver, ...this.leftOut() };
    const minority = refusedBy === undefined && failures.length === 0;
    const left = this.leftOut().skipped ?? [];
    this.skipped.clear();
    await this.giveBack(taken, request);
    const down = failures.filter((f): f is UnreachableHost => f instanceof UnreachableHost);
    if (failures.length > down.length) throw failures.find((f) => !(f instanceof UnreachableHost));
    if (down.length > 0)
      throw unreachableHosts(down.map((d) => ({ where: d.host, reason: d.reason })));
    if (minority) throw unreachableHosts(left, minorityWhy(taken.length, this.hosts.length));
    return { ok: false, holder: refusedBy as HeldPiece };
  }

  /**
   * More than half of deploy.yml's pieces: two deployers each cut off from a
   * different part of the fleet cannot both hold that many, so they meet on
   * a piece and one of them is refused there.
   */
  private isMajority(held: number): boolean {
    return held * 2 > this.hosts.length;
  }

  async renew(request: LeaseRequest): Promise<LeaseRenew> {
    const unreachable: string[] = [];
    let lost: LeaseRenew | undefined;
    const held = this.held();
    const rejoined = await this.rejoin(request);
    await Promise.all(
      held.map(async (host) => {
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
    return lost ?? { ok: true, unreachable, ...(rejoined.length > 0 && { rejoined }) };
  }

  async release(request: LeaseRequest): Promise<void> {
    // the sessions stay: whoever opened the connections (the command) ends them
    await this.giveBack(this.held(), request);
  }

  read(): Promise<readonly LeaseView[]> {
    return this.readEach(this.hosts);
  }

  /**
   * Every live piece's holder named as replaced, then taken and given back:
   * the agents' own take, so a piece that is not a lease (a garbage file)
   * still refuses, naming its host.
   */
  async break(request: LeaseRequest): Promise<readonly LeaseView[]> {
    const views = await this.read();
    const ids = [...new Set(views.flatMap((v) => (v.lease ? [v.lease.id] : [])))];
    const take = await this.take({ ...request, replaces: ids });
    if (!take.ok)
      throw new BlockedError(
        `the fleet lease was taken again while breaking it, on ${take.holder.where}`,
      );
    await this.release(request);
    return views;
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
   * The first host is down: the others are asked too (a read, nothing
   * taken), so every host that is down is named, one line each, not one
   * host per attempt.
   */
  private async allUnreachable(first: UnreachableHost): Promise<BlockedError> {
    const views = await this.readEach(this.hosts.slice(1));
    return unreachableHosts([
      { where: first.host, reason: first.reason },
      ...views.flatMap((v) => (v.unreachable ? [{ where: v.where, reason: v.unreachable }] : [])),
    ]);
  }

  /**
   * Every host's session, opened at once. One that does not open is no
   * verdict (a session that cannot start says less than the call): the take
   * asks that host without one, and its error is what is reported.
   */
  connect(): Promise<void> {
    return this.openSessions();
  }

  private async openSessions(): Promise<void> {
    await Promise.all(
      this.hosts.map(async (host) => {
        await (await this.agent(host)).openSession?.().catch((error: unknown) => {
          // the parallel reach of every host, bounded by ssh.connect_timeout: a host it did
          // not reach is not waited for again, one after another, at the take
          if (isNetworkUnreachable(error))
            this.down.set(host.name, new UnreachableHost(host.name, error));
        });
      }),
    );
  }

  private agent(host: HostConfig): Promise<HostAgent> {
    let agent = this.agents.get(host.name);
    if (!agent) {
      agent = this.agentOf(host);
      this.agents.set(host.name, agent);
      agent.catch(() => this.agents.delete(host.name));
    }
    return agent;
  }

  private async giveBack(hosts: readonly HostConfig[], request: LeaseRequest): Promise<void> {
    await Promise.allSettled(hosts.map((h) => this.call(h, 'release', request)));
  }

  private async call(
    host: HostConfig,
    action: LeaseAction,
    request?: LeaseRequest,
  ): Promise<LeaseAnswer> {
    const down = this.down.get(host.name);
    if (down && this.options.skipUnreachable && action === 'take') throw down;
    let agent: HostAgent;
    try {
      agent = await this.agent(host);
    } catch (error) {
      throw new UnreachableHost(host.name, error);
    }
    try {
      const lease = request ? { lease: JSON.stringify(request) } : {};
      return await agent.run('lease', { action, ...lease });
    } catch (error) {
      // the agent's own word (a garbage piece, a newer version) stands as it is
      if (error instanceof HandoffError && !(error instanceof HostUnreachableError)) throw error;
      throw new UnreachableHost(host.name, error);
    }
  }
}

/**
 * A host whose piece could not be reached. Never said as it is: a take names
 * every such host at once (unreachableHosts), a read and a renewal by host.
 */
class UnreachableHost extends BlockedError {
  readonly reason: string;
  /** the network did not carry us there (isNetworkUnreachable): what skipUnreachable leaves out */
  readonly network: boolean;

  constructor(
    readonly host: string,
    error: unknown,
  ) {
    const reason = hostError(host, error);
    super(`${host}: ${reason}`);
    this.reason = reason;
    this.network = isNetworkUnreachable(error);
  }
}

/** One line per host that is down, as preflight would say it, then what the lease needs. */
function unreachableHosts(
  down: readonly { where: string; reason: string }[],
  why = 'the fleet lease covers every host of deploy.yml and is never partial: fix those hosts or remove them from deploy.yml',
): BlockedError {
  return new BlockedError(
    [...preflightLines(down.map((d) => ({ host: d.where, reason: d.reason }))), why].join('\n'),
  );
}

function minorityWhy(held: number, hosts: number): string {
  return `the fleet lease needs more than half of deploy.yml's hosts (${Math.floor(hosts / 2) + 1} of ${hosts}) and reached ${held}: two deployers each cut off from a different part of the fleet could otherwise both hold it; nothing was held`;
}

function piece(host: HostConfig, answer: LeaseAnswer): HeldPiece {
  if (!answer.lease) throw new Error('piece of an answer without a lease');
  return { where: host.name, lease: answer.lease, ageMs: answer.ageMs ?? 0 };
}
