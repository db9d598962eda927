import { messageOf } from '../../../errors.js';
import {
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  LEASE_VERSION,
  type LeaseRecord,
  type LeaseRequest,
} from '../../../protocol/lease.js';
import type { HeldPiece, LeaseRenew, LeaseStore, LeaseTake, LeaseView } from '../store.js';
import { EtcdGateway, b64, type EtcdOptions } from './gateway.js';
import { parseEtcdLease } from './record.js';

/**
 * The fleet lease as one etcd key, `<prefix>/<service>/lease`, attached to an
 * etcd lease with a TTL. Taken by a transaction that puts the key only if it
 * does not exist (create_revision 0); renewed by keep-alive; released by
 * revoking the etcd lease, which deletes the key if it is still attached to
 * it (still ours) and nothing otherwise. A dead holder's key disappears when
 * etcd's TTL runs out, by etcd's clock alone, and the next take finds it
 * free; before that, only a holder proven gone (its `replaces`) is taken over,
 * by a transaction on the key's mod_revision.
 */

export interface EtcdStoreOptions extends EtcdOptions {
  readonly prefix: string;
  readonly service: string;
  /** etcd's TTL for the lease; LEASE_TTL_MS unless a test needs it short */
  readonly ttlMs?: number;
  readonly now?: () => number;
}

interface Kv {
  readonly key?: string;
  readonly value?: string;
  readonly mod_revision?: string;
  readonly lease?: string;
}
interface TxnAnswer {
  readonly succeeded?: boolean;
  readonly responses?: readonly { readonly response_range?: { readonly kvs?: readonly Kv[] } }[];
}

export class EtcdLeaseStore implements LeaseStore {
  readonly key: string;
  readonly where: string;
  private readonly etcd: EtcdGateway;
  private readonly ttlS: number;
  private readonly now: () => number;
  /** the etcd lease this deployer's key is attached to, and when a renewal last reached etcd */
  private held: { id: string; etcdLease: string; renewedAt: number } | undefined;

  constructor(options: EtcdStoreOptions) {
    this.key = `${options.prefix.replace(/\/$/, '')}/${options.service}/lease`;
    this.where = `etcd ${this.key}`;
    this.etcd = new EtcdGateway(options);
    this.ttlS = Math.max(2, Math.round((options.ttlMs ?? LEASE_TTL_MS) / 1000));
    this.now = options.now ?? Date.now;
  }

  async connect(): Promise<void> {
    await this.etcd.call('maintenance/status', {});
  }

  async take(request: LeaseRequest): Promise<LeaseTake> {
    for (;;) {
      const sent = this.now();
      const { ID: etcdLease } = await this.etcd.call<{ ID: string }>('lease/grant', {
        TTL: this.ttlS,
      });
      let taken: LeaseTake | 'again' | undefined;
      try {
        taken = await this.attempt(request, etcdLease);
      } finally {
        if (taken === undefined || taken === 'again' || !taken.ok) await this.revoke(etcdLease);
      }
      if (taken === 'again') continue;
      if (taken.ok) this.held = { id: request.id, etcdLease, renewedAt: sent };
      return taken;
    }
  }

  /** One try; 'again' when the key changed between the compare and the read. */
  private async attempt(request: LeaseRequest, etcdLease: string): Promise<LeaseTake | 'again'> {
    const value = b64(JSON.stringify(this.record(request, this.now())));
    const put = { request_put: { key: b64(this.key), value, lease: etcdLease } };
    const first = await this.txn({ target: 'CREATE', create_revision: '0' }, put);
    if (first.succeeded) return { ok: true, tookOver: [] };
    const kv = rangeOf(first);
    if (!kv) return 'again';
    const holder = await this.piece(kv);
    if (!request.replaces?.includes(holder.lease.id)) return { ok: false, holder };
    const over = await this.txn({ target: 'MOD', mod_revision: kv.mod_revision ?? '0' }, put);
    if (!over.succeeded) return 'again';
    // the dead holder's etcd lease has nothing left to keep: let it go with it
    await this.revoke(kv.lease);
    return { ok: true, tookOver: [holder] };
  }

  async renew(request: LeaseRequest): Promise<LeaseRenew> {
    const held = this.held;
    if (held?.id !== request.id) return { ok: false, where: this.where };
    const sent = this.now();
    try {
      const alive = await this.etcd.call<{ TTL?: string }>('lease/keepalive', {
        ID: held.etcdLease,
      });
      const kv = await this.read1();
      const mine = Number(alive.TTL ?? 0) > 0 && kv?.lease === held.etcdLease;
      if (!mine) return { ok: false, where: this.where, ...(await this.holderOf(kv)) };
      held.renewedAt = sent;
      return { ok: true, unreachable: [] };
    } catch (error) {
      // etcd unreachable: its TTL runs from the last keep-alive it saw; lost for sure
      // before then, said while a renewal (LEASE_RENEW_MS) could still make it in time
      if (sent - held.renewedAt + LEASE_RENEW_MS >= this.ttlS * 1000)
        return { ok: false, where: `${this.where} (unreachable: ${messageOf(error)})` };
      return { ok: true, unreachable: [`${this.where} (${messageOf(error)})`] };
    }
  }

  async release(request: LeaseRequest): Promise<void> {
    if (this.held?.id !== request.id) return;
    // revoking deletes the key only while it is attached to this etcd lease: ours
    await this.revoke(this.held.etcdLease);
    this.held = undefined;
    this.etcd.close();
  }

  async read(): Promise<readonly LeaseView[]> {
    let kv: Kv | undefined;
    try {
      kv = await this.read1();
    } catch (error) {
      return [{ where: this.where, unreachable: messageOf(error) }];
    }
    if (!kv) return [{ where: this.where }];
    try {
      const { lease, ageMs } = await this.piece(kv);
      return [{ where: this.where, lease, ageMs }];
    } catch (error) {
      return [{ where: this.where, problem: messageOf(error) }];
    }
  }

  /**
   * `deploy lease break`: the key deleted whoever holds it, its etcd lease
   * revoked, and the break kept beside it (`<prefix>/<service>/breaks/<time>`:
   * who broke whose lease), where the lease lives and operators look.
   */
  async break(request: LeaseRequest): Promise<readonly LeaseView[]> {
    const views = await this.read();
    const kv = await this.read1();
    await this.etcd.call('kv/deleterange', { key: b64(this.key) });
    await this.revoke(kv?.lease);
    const at = new Date(this.now()).toISOString();
    const broke = views.flatMap((v): unknown[] =>
      v.lease ? [v.lease] : v.problem ? [v.problem] : [],
    );
    if (broke.length === 0) return views;
    await this.etcd.call('kv/put', {
      key: b64(`${this.key.replace(/lease$/, 'breaks')}/${at}`),
      value: b64(JSON.stringify({ at, by: request.holder, command: request.command, broke })),
    });
    return views;
  }

  close(): void {
    this.etcd.close();
  }

  private record(request: LeaseRequest, now: number): LeaseRecord {
    const { replaces: _replaces, ...asked } = request;
    const at = new Date(now).toISOString();
    // started and heartbeat say when, by the taker's clock; only etcd's TTL decides expiry
    return {
      ...asked,
      version: LEASE_VERSION,
      started: at,
      heartbeat: at,
      ttlMs: this.ttlS * 1000,
    };
  }

  private txn(compare: object, put: object): Promise<TxnAnswer> {
    const key = b64(this.key);
    return this.etcd.call<TxnAnswer>('kv/txn', {
      compare: [{ key, result: 'EQUAL', ...compare }],
      success: [put],
      failure: [{ request_range: { key } }],
    });
  }

  private async read1(): Promise<Kv | undefined> {
    const answer = await this.etcd.call<{ kvs?: readonly Kv[] }>('kv/range', {
      key: b64(this.key),
    });
    return answer.kvs?.[0];
  }

  /** The holder and how long since its last keep-alive, by etcd's TTL. */
  private async piece(kv: Kv): Promise<HeldPiece> {
    const lease = parseEtcdLease(this.where, kv.value);
    return { where: this.where, lease, ageMs: await this.sinceKeepAlive(kv.lease, lease.ttlMs) };
  }

  /** Who holds the key now, when it says (a garbage value names no one). */
  private async holderOf(kv: Kv | undefined): Promise<{ holder?: HeldPiece }> {
    const holder = kv && (await this.piece(kv).catch(() => undefined));
    return holder ? { holder } : {};
  }

  private async sinceKeepAlive(etcdLease: string | undefined, ttlMs: number): Promise<number> {
    if (!etcdLease || etcdLease === '0') return 0;
    const ttl = await this.etcd.call<{ TTL?: string; grantedTTL?: string }>('lease/timetolive', {
      ID: etcdLease,
    });
    const granted = Number(ttl.grantedTTL ?? ttlMs / 1000);
    return Math.max(0, (granted - Math.max(0, Number(ttl.TTL ?? 0))) * 1000);
  }

  private async revoke(etcdLease: string | undefined): Promise<void> {
    if (!etcdLease || etcdLease === '0') return;
    await this.etcd.call('lease/revoke', { ID: etcdLease }).catch((error: unknown) => {
      // already gone (expired, revoked by `lease break`): nothing left to give back
      if (!/lease not found/.test(messageOf(error))) throw error;
    });
  }
}

function rangeOf(answer: TxnAnswer): Kv | undefined {
  return answer.responses?.[0]?.response_range?.kvs?.[0];
}
