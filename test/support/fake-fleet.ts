import type { ReleaseFile } from '../../src/host/release-files.js';
import type { Balancer, TargetState } from '../../src/balancer/balancer.js';
import type { HealthCheckSettings } from '../../src/config/types.js';
import type { HeldLock, LockLoss, LockLossCause } from '../../src/agent-client/client.js';
import type { HostAgent } from '../../src/agent-client/host-agent.js';
import type {
  AuditEntry,
  DrainMarkerData,
  HostStatus,
  StopReport,
  VerifyReport,
} from '../../src/protocol/results.js';
import type { AgentOp, ArgsOf, ResultOf } from '../../src/protocol/ops.js';
import type { FakeClock } from './fake-clock.js';

export const settings: HealthCheckSettings = {
  interval: 5000,
  timeout: 2000,
  unhealthyThreshold: 2,
  healthyThreshold: 2,
};

type FakeAnswer<K extends AgentOp> = (args: ArgsOf<K>) => Promise<ResultOf<K>>;
/** A fake host's answers, by operation of the table; the ones a test needs. */
export type FakeAnswers = { -readonly [K in AgentOp]?: FakeAnswer<K> };

/** One simulated host: what runs, whether it is drained, and every call made to it. */
export class FakeHost implements HostAgent {
  calls: string[] = [];
  audit: AuditEntry[] = [];
  release: string | null;
  previous: string | null = null;
  /** what its releases/ holds, as status says */
  onDisk: string[] = [];
  running = true;
  drained = false;
  /**
   * what its drain marker says while drained: the last drain's, or (drained set
   * by hand) a leftover of a rollout of r2 that died
   */
  marker: DrainMarkerData = { by: 'ci@runner', since: 'then', until: 'later', release: 'r2' };
  drainedAt = 0;
  undrainedAt = 0;
  locked = false;
  /** who the status says holds the lock */
  holderWhat = 'deploy rollout';
  /** releases whose services fail their checks */
  bad = new Set<string>();
  /** make a call throw: op name → error */
  failOn = new Map<string, Error>();
  /** its stop exits 0 and stops nothing (a broken stop script): the proof fails */
  stopIgnored = false;
  /** the release each stop was given (the one about to start) */
  stopReleases: string[] = [];
  /** services found running with no release live (started by hand): adopted at stop */
  adoptable: string[] = [];
  /** the sha256 of the host config its agent reads */
  configSha256: string | undefined;
  /** compose hosts: what status says of the compose command */
  compose: HostStatus['compose'] | undefined;
  /** the files each publish carried */
  published: (readonly ReleaseFile[])[] = [];
  /** what `node -p process.versions.node` answers on it */
  node = '24.11.1';
  /** how many times the checks' warm-up was asked for (the `warm` step) */
  warmed = 0;
  /** run a hook when an op is called (e.g. abort the rollout) */
  onCall: ((op: string) => void) | undefined;

  constructor(
    readonly host: string,
    private readonly clock: FakeClock,
    release: string | null = 'r1',
  ) {
    this.release = release;
  }

  private op(name: string): void {
    this.calls.push(name);
    this.onCall?.(name);
    const error = this.failOn.get(name);
    if (error) throw error;
  }

  get healthy(): boolean {
    return this.running && this.release !== null && !this.bad.has(this.release);
  }

  /**
   * What it answers, by operation of the table (src/protocol/ops.ts), typed by
   * it: `run` looks the operation up here, and a test scripts one by replacing
   * its entry. An operation with no entry is refused, as an agent without it would.
   */
  readonly answers: FakeAnswers = {
    hello: () => {
      this.op('hello');
      return Promise.resolve({ version: '0.1.0', protocol: 1, sha256: 'abc', node: 'v20' });
    },
    status: () => {
      this.op('status');
      return Promise.resolve(this.statusNow());
    },
    listening: (a) => {
      this.op('listening');
      const targets = a.targets.split(',');
      return Promise.resolve(
        Object.fromEntries(targets.map((t) => [t, !this.notListening.has(t)])),
      );
    },
    drain: (a) => {
      this.op('drain');
      const now = this.clock.now();
      this.marker = {
        by: a.by,
        since: new Date(now).toISOString(),
        until: new Date(now + a.leaseMs).toISOString(),
        ...(a.release ? { release: a.release } : {}),
      };
      if (!this.drained) this.drainedAt = this.clock.now();
      this.drained = true;
      return Promise.resolve(null);
    },
    undrain: () => {
      this.op('undrain');
      this.drained = false;
      this.undrainedAt = this.clock.now();
      return Promise.resolve(null);
    },
    stop: (a) => {
      this.op('stop');
      return Promise.resolve(this.stopNow(a.release ?? ''));
    },
    switch: (a) => {
      this.op(`switch ${a.release}`);
      const previous = this.release;
      this.previous = previous;
      this.release = a.release;
      return Promise.resolve({ previous, current: a.release });
    },
    verify: (a) => this.verifyNow(a),
    // not among `calls`: nothing on the host changes, and no step waits for it
    warm: () => {
      this.warmed += 1;
      return Promise.resolve({});
    },
  };

  /** one operation, answered from `answers`; a call that throws becomes a rejection */
  async run<K extends AgentOp>(op: K, args: ArgsOf<K>): Promise<ResultOf<K>> {
    const answer = this.answers[op];
    if (!answer) throw new Error(`${this.host}: the fake answers no ${op}`);
    return answer(args);
  }

  nodeVersion() {
    this.op('node');
    return Promise.resolve({ code: 0, stdout: `${this.node}\n`, stderr: '' });
  }
  private statusNow(): HostStatus {
    return {
      host: this.host,
      ...(this.configSha256 !== undefined && { config_sha256: this.configSha256 }),
      release: this.release,
      previous: this.previous,
      releases: this.onDisk,
      lock: this.locked
        ? { locked: true, holder: { what: this.holderWhat, pid: 1, since: 'then' } }
        : { locked: false },
      draining: this.drained ? this.marker : null,
      watchdog: null,
      ...(this.compose ? { compose: this.compose } : {}),
    };
  }
  publish(release: string, files: readonly ReleaseFile[] = []) {
    this.published.push(files);
    this.op(`publish ${release}`);
    return Promise.resolve();
  }
  /** `[ipv4:]port` targets nothing on it listens on (its socket table, as the agent reads it) */
  notListening = new Set<string>();
  /** ends the lock now held, as a holder that went away would */
  private lose: ((loss: LockLoss) => void) | undefined;
  /** the lock's holder goes away: with the connection, or on its own (`connected`) */
  loseLock(why: LockLossCause): void {
    const lose = this.lose;
    this.lose = undefined;
    this.locked = false;
    lose?.({ why: () => Promise.resolve(why) });
  }
  holdLock(): Promise<HeldLock> {
    this.op('lock');
    this.locked = true;
    const lost = new Promise<LockLoss>((resolve) => (this.lose = resolve));
    return Promise.resolve({
      release: () => {
        this.op('unlock');
        this.locked = false;
        return Promise.resolve();
      },
      audit: (entry: AuditEntry) => void this.audit.push(entry),
      lost,
    });
  }
  private stopNow(release: string): StopReport {
    const adopted = this.release === null ? this.adoptable : [];
    this.stopReleases.push(release);
    if (this.release === null && adopted.length === 0)
      return { stopped: false, adopted, services: [], proven: true };
    if (this.stopIgnored) {
      return {
        stopped: true,
        adopted,
        proven: false,
        services: [
          { service: 'app', proven: false, detail: '127.0.0.1:8080 still accepts connections' },
          { service: 'worker', proven: true, detail: 'status says stopped (exit-3)' },
        ],
      };
    }
    this.running = false;
    this.adoptable = [];
    return {
      stopped: true,
      adopted,
      proven: true,
      services: [{ service: 'app', proven: true, detail: '127.0.0.1:8080 refuses connections' }],
    };
  }
  start(services?: readonly string[], options: { ifStopped?: boolean } = {}) {
    const what = services ? ` ${services.join(',')}` : options.ifStopped ? ' if-stopped' : '';
    this.op(`start${what}`);
    this.running = true;
    return Promise.resolve({ started: services ?? ['app'], running: [] });
  }
  /** the releaseOptional of each verify */
  lenientVerifies: boolean[] = [];
  /** the next verify answers only once this resolves (a verify that takes its whole bound) */
  holdVerify: Promise<void> | undefined;
  private async verifyNow(options: ArgsOf<'verify'>): Promise<VerifyReport> {
    this.op(options.allowDraining ? 'verify' : 'confirm');
    this.lenientVerifies.push(options.releaseOptional ?? false);
    const held = this.holdVerify;
    this.holdVerify = undefined;
    if (held) await held;
    const ok = this.healthy;
    return {
      ok,
      elapsed_ms: 1,
      services: [
        { name: 'app', ok, code: ok ? 'ok' : 'status-500', latency_ms: 1, passes: ok ? 1 : 0 },
      ],
    };
  }
}

/**
 * A balancer that follows the fake hosts with the health-check arithmetic: a
 * drained host goes out after interval × unhealthy_threshold, a healthy
 * undrained one comes back after interval × healthy_threshold.
 */
export class FakeBalancer implements Balancer {
  readonly kind: Balancer['kind'] = 'haproxy';
  deregistered: string[] = [];
  /** sampled number of targets out of rotation, for batch assertions */
  maxOut = 0;
  constructor(
    private readonly hosts: Map<string, FakeHost>,
    private readonly clock: FakeClock,
    private readonly s: HealthCheckSettings = settings,
    /** a target that never leaves rotation (a balancer ignoring the drain) */
    readonly stuck = new Set<string>(),
  ) {}
  /** targets it never puts back in rotation (a failing check it does not share with verify) */
  readonly neverBack = new Set<string>();
  settings() {
    return Promise.resolve(this.s);
  }
  /** make the next `times` states() calls fail (an API throttled past the retry bound) */
  failStates(error: Error, times = Number.POSITIVE_INFINITY): void {
    this.statesError = { error, left: times };
  }
  private statesError: { error: Error; left: number } | undefined;
  states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    if (this.statesError && this.statesError.left > 0) {
      this.statesError.left -= 1;
      return Promise.reject(this.statesError.error);
    }
    const now = this.clock.now();
    const out = new Map<string, TargetState>();
    for (const t of targets) {
      const h = this.hosts.get(t);
      if (!h) continue;
      const inRotation = this.stuck.has(t) || (!this.neverBack.has(t) && this.inRotation(h, now));
      out.set(t, { target: t, state: inRotation ? 'healthy' : 'unhealthy', inRotation });
    }
    this.maxOut = Math.max(this.maxOut, [...this.hosts.values()].filter((h) => h.drained).length);
    return Promise.resolve(out);
  }
  private inRotation(h: FakeHost, now: number): boolean {
    if (h.drained) return now - h.drainedAt < this.s.interval * this.s.unhealthyThreshold;
    if (!h.healthy) return false;
    return h.undrainedAt === 0 || now - h.undrainedAt >= this.s.interval * this.s.healthyThreshold;
  }
  /** make register (and deregister) refuse (an IAM policy without them) */
  refuse: Error | undefined;
  /** make only deregister refuse */
  refuseDeregister: Error | undefined;
  /** make only register refuse (throttled, a 5xx), while preflight's proof passes */
  refuseRegister: Error | undefined;
  /** targets the preflight registered again to prove the permission */
  proved: string[] = [];
  deregister(target: string) {
    const refused = this.refuseDeregister ?? this.refuse;
    if (refused) return Promise.reject(refused);
    this.deregistered.push(target);
    return Promise.resolve();
  }
  register() {
    const refused = this.refuseRegister ?? this.refuse;
    if (refused) return Promise.reject(refused);
    return Promise.resolve();
  }
  proveRegister(target: string) {
    if (this.refuse) return Promise.reject(this.refuse);
    this.proved.push(target);
    return Promise.resolve();
  }
  close() {
    return Promise.resolve();
  }
}
