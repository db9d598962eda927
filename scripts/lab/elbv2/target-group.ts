import { haproxyCommand, showStat } from '../haproxy.js';
import type { LabLayout, LabTimings } from '../layout.js';
import type { XmlValue } from './protocol.js';
import { applyChecks } from './haproxy-checks.js';
import { checkAttributes, checkGroupFields } from './limits.js';
import {
  checkTypeAttributes,
  loadBalancerPath,
  protocolFields,
  resetsAtDelayEnd,
  typeAttributes,
  type GroupType,
} from './network.js';
import { ApiError, Registrations, type NamedTarget } from './registrations.js';
import { targetHealth, type Registration, type ReportedHealth } from './target-health.js';

export { ApiError };

const ACCOUNT = '000000000000';

/**
 * The lab's one target group, backed by HAProxy: registrations live here,
 * health comes from HAProxy's checks, and every change is made in HAProxy
 * through its runtime API, so what the group says is what the balancer does.
 */
export class LabTargetGroup {
  readonly arn: string;
  readonly name: string;
  readonly loadBalancerArn: string;
  /** behind an Application (the lab's default) or a Network Load Balancer */
  readonly type: GroupType;
  /** the group's `Port`: where a target named without a port is registered */
  private port: number;
  private readonly targets: Registrations;
  /** false: no load balancer uses the group, and every target is `unused` (Target.NotInUse) */
  private inUse = true;
  private readonly timers = new Set<NodeJS.Timeout>();
  private checks: { interval: number; timeout: number; healthy: number; unhealthy: number };
  private readonly attributes = new Map<string, string>();
  /** every state DescribeTargetHealth reported per target, repeats folded */
  readonly seen = new Map<string, string[]>();

  constructor(
    private readonly layout: LabLayout,
    private readonly socket: string,
    region: string,
    options: {
      deregistrationDelayS: number;
      now: number;
      /** a second group (the lab's pair): its name, and the checks of the HAProxy behind it */
      second?: { readonly name: string; readonly timings: LabTimings };
      /** a Network Load Balancer's group (TCP, TCP checks, connection termination) */
      type?: GroupType;
    },
  ) {
    this.type = options.type ?? 'application';
    this.port = layout.appPort;
    this.targets = new Registrations(
      this.port,
      (id, port) =>
        port === layout.appPort ? layout.hosts.find((h) => h.address === id)?.name : undefined,
      (id) => layout.hosts.some((h) => h.address === id),
    );
    this.name = options.second?.name ?? layout.service;
    const id = options.second ? '0123456789abcdee' : '0123456789abcdef';
    const lb = options.second ? 'lab-internal/fedcba9876543211' : 'lab/fedcba9876543210';
    this.arn = `arn:aws:elasticloadbalancing:${region}:${ACCOUNT}:targetgroup/${this.name}/${id}`;
    this.loadBalancerArn = `arn:aws:elasticloadbalancing:${region}:${ACCOUNT}:loadbalancer/${loadBalancerPath(this.type)}/${lb}`;
    const t = options.second?.timings ?? layout.timings;
    this.checks = {
      interval: t.interval / 1000,
      timeout: Math.ceil(t.checkTimeout / 1000),
      healthy: t.rise,
      unhealthy: t.fall,
    };
    this.attributes.set(
      'deregistration_delay.timeout_seconds',
      String(options.deregistrationDelayS),
    );
    for (const [key, value] of typeAttributes(this.type)) this.attributes.set(key, value);
    this.attributes.set(
      'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count',
      '1',
    );
    this.attributes.set(
      'target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage',
      'off',
    );
    // the lab's hosts, registered on the port they listen on (an override when the group's differs)
    for (const h of layout.hosts)
      this.targets.register({ Id: h.address, Port: layout.appPort }, options.now);
  }

  private backend(): string {
    return this.layout.backend;
  }

  describeGroup(): Record<string, XmlValue> {
    return {
      TargetGroupArn: this.arn,
      TargetGroupName: this.name,
      ...protocolFields(this.type),
      Port: this.port,
      TargetType: 'ip',
      HealthCheckIntervalSeconds: this.checks.interval,
      HealthCheckTimeoutSeconds: this.checks.timeout,
      HealthyThresholdCount: this.checks.healthy,
      UnhealthyThresholdCount: this.checks.unhealthy,
      LoadBalancerArns: this.inUse ? [this.loadBalancerArn] : [],
    };
  }

  groupAttributes(): XmlValue[] {
    return [...this.attributes].map(([Key, Value]) => ({ Key, Value }));
  }

  /**
   * DescribeTargetHealth, unpaginated as the reference has it (no NextToken
   * among its parameters): every registration, or the named ones. A named
   * target that is not registered is `unused`, `Target.NotRegistered`; with no
   * load balancer using the group every target is `unused`,
   * `Target.NotInUse` (TargetHealth, Reason).
   */
  async health(named: readonly NamedTarget[], now: number): Promise<XmlValue[]> {
    // a row read while a registration settled may show the server UP between its two commands
    const settlesAtRead = new Map(this.targets.all().map((r) => [r, r.settles ?? 0]));
    const rows = await showStat(this.socket);
    const rowOf = (reg: Registration) =>
      reg.settling || settlesAtRead.get(reg) !== (reg.settles ?? 0)
        ? undefined
        : rows.find((r) => r.pxname === this.backend() && r.svname === reg.server);
    const delay = Number(this.attributes.get('deregistration_delay.timeout_seconds')) * 1000;
    const checks = {
      intervalMs: this.checks.interval * 1000,
      healthy: this.checks.healthy,
      unhealthy: this.checks.unhealthy,
    };
    const healthOf = (reg: Registration): ReportedHealth =>
      this.inUse || !reg.registered ? targetHealth(reg, rowOf(reg), checks, delay, now) : notInUse;
    const report = (target: { id: string; port: number }, h: ReportedHealth): XmlValue => {
      this.remember(target.id, h.State);
      return {
        Target: { Id: target.id, Port: target.port },
        HealthCheckPort: String(target.port),
        TargetHealth: { ...h },
      };
    };
    if (named.length > 0)
      return named.map((t) => {
        const reg = this.targets.get(t);
        return report(this.targets.keyOf(t), reg ? healthOf(reg) : notRegistered);
      });
    const out: XmlValue[] = [];
    for (const reg of this.targets.all()) {
      const h = healthOf(reg);
      // as on AWS: a target whose deregistration finished is no longer listed
      if (h.State === 'unused' && !reg.registered) {
        this.remember(reg.id, 'unused');
        await this.complete(reg);
        this.targets.forget(reg);
      } else out.push(report(reg, h));
    }
    return out;
  }

  /** Every (Id, Port) the group holds, registered or draining: what a test asserts on. */
  registrations(): { id: string; port: number; registered: boolean }[] {
    return this.targets.all().map(({ id, port, registered }) => ({ id, port, registered }));
  }

  /**
   * A test aid: the group's port as if it had been created on this one, its
   * registrations kept where they are (on the app's port: now overrides,
   * as for one instance serving several services). AWS cannot change a
   * group's port (ModifyTargetGroup has no Port); nothing in the lab listens
   * on the new one.
   */
  setPort(port: number): void {
    this.port = port;
    this.targets.groupPort = port;
  }

  /** The group loses (false) or gets back (true) its load balancer, as the console would. */
  setInUse(inUse: boolean): void {
    this.inUse = inUse;
  }

  /** RegisterTargets: see Registrations for what the reference says of (Id, Port). */
  async register(targets: readonly NamedTarget[], now: number): Promise<void> {
    for (const t of targets) {
      const reg = this.targets.register(t, now);
      // a registration on a port nothing listens on has no HAProxy server: it fails its checks
      if (!reg?.server) continue;
      // a registered target earns `healthy` with the group's healthy threshold, like on AWS.
      // Until both commands are done it is `initial`: a DescribeTargetHealth between them
      // would see the server's old UP and call a target healthy that has passed no check
      reg.settling = true;
      reg.settles = (reg.settles ?? 0) + 1;
      try {
        await this.haproxy(`set server ${this.backend()}/${reg.server} state ready`);
        await this.haproxy(`set server ${this.backend()}/${reg.server} health down`);
      } finally {
        reg.settling = false;
        reg.settles = (reg.settles ?? 0) + 1;
      }
    }
  }

  /** DeregisterTargets: `draining` for the deregistration delay (or until idle), then gone. */
  async deregister(targets: readonly NamedTarget[], now: number): Promise<void> {
    const delay = Number(this.attributes.get('deregistration_delay.timeout_seconds')) * 1000;
    for (const t of targets) {
      const reg = this.targets.deregister(t, now);
      if (!reg) continue;
      if (reg.server) await this.haproxy(`set server ${this.backend()}/${reg.server} state drain`);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.complete(reg).catch(() => undefined);
      }, delay);
      this.timers.add(timer);
    }
  }

  async modifyGroup(params: ReadonlyMap<string, string>): Promise<void> {
    checkGroupFields(params);
    const num = (key: string, current: number): number => {
      const v = params.get(key);
      return v === undefined ? current : Number(v);
    };
    this.checks = {
      interval: num('HealthCheckIntervalSeconds', this.checks.interval),
      timeout: num('HealthCheckTimeoutSeconds', this.checks.timeout),
      healthy: num('HealthyThresholdCount', this.checks.healthy),
      unhealthy: num('UnhealthyThresholdCount', this.checks.unhealthy),
    };
    await applyChecks(this.socket, this.backend(), this.layout.hosts, this.layout.appPort, {
      interMs: this.checks.interval * 1000,
      rise: this.checks.healthy,
      fall: this.checks.unhealthy,
    });
  }

  modifyAttributes(attributes: readonly Record<string, string>[]): void {
    checkAttributes(attributes);
    checkTypeAttributes(this.type, attributes);
    for (const a of attributes)
      if (a.Key !== undefined && a.Value !== undefined) this.attributes.set(a.Key, a.Value);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  /**
   * The deregistration is over: HAProxy sends the server nothing at all. An
   * NLB group with deregistration_delay.connection_termination.enabled
   * "terminates connections at the end of the deregistration timeout"
   * (TargetGroupAttribute): every session still open to the server is reset.
   */
  private async complete(reg: Registration): Promise<void> {
    if (reg.registered || reg.maint) return;
    reg.maint = true;
    if (reg.server && resetsAtDelayEnd(this.attributes))
      await this.haproxy(`shutdown sessions server ${this.backend()}/${reg.server}`);
    if (reg.server) await this.haproxy(`set server ${this.backend()}/${reg.server} state maint`);
  }

  private remember(id: string, state: string): void {
    const list = this.seen.get(id) ?? [];
    if (list.at(-1) !== state) list.push(state);
    this.seen.set(id, list);
  }

  private async haproxy(command: string): Promise<void> {
    const answer = (await haproxyCommand(this.socket, command)).trim();
    if (answer !== '') throw new ApiError('InternalFailure', `haproxy: ${answer}`, 500);
  }
}

const notRegistered: ReportedHealth = {
  State: 'unused',
  Reason: 'Target.NotRegistered',
  Description: 'Target is not registered to the target group',
};
const notInUse: ReportedHealth = {
  State: 'unused',
  Reason: 'Target.NotInUse',
  Description: 'Target group is not configured to receive traffic from the load balancer',
};
