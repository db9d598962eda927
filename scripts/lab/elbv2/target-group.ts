import { haproxyCommand, showStat } from '../haproxy.js';
import type { LabLayout, LabTimings } from '../layout.js';
import type { XmlValue } from './protocol.js';
import { applyChecks } from './haproxy-checks.js';
import { targetHealth, type Registration, type ReportedHealth } from './target-health.js';

export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

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
  private readonly targets = new Map<string, Registration>();
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
    },
  ) {
    this.name = options.second?.name ?? layout.service;
    const id = options.second ? '0123456789abcdee' : '0123456789abcdef';
    const lb = options.second ? 'lab-internal/fedcba9876543211' : 'lab/fedcba9876543210';
    this.arn = `arn:aws:elasticloadbalancing:${region}:${ACCOUNT}:targetgroup/${this.name}/${id}`;
    this.loadBalancerArn = `arn:aws:elasticloadbalancing:${region}:${ACCOUNT}:loadbalancer/app/${lb}`;
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
    this.attributes.set('slow_start.duration_seconds', '0');
    this.attributes.set(
      'target_group_health.unhealthy_state_routing.minimum_healthy_targets.count',
      '1',
    );
    this.attributes.set(
      'target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage',
      'off',
    );
    for (const h of layout.hosts)
      this.targets.set(h.address, {
        id: h.address,
        port: layout.appPort,
        server: h.name,
        registered: true,
        registeredAt: options.now,
        seenUp: false,
      });
  }

  private backend(): string {
    return this.layout.backend;
  }

  describeGroup(): Record<string, XmlValue> {
    return {
      TargetGroupArn: this.arn,
      TargetGroupName: this.name,
      Protocol: 'HTTP',
      Port: this.layout.appPort,
      TargetType: 'ip',
      HealthCheckProtocol: 'HTTP',
      HealthCheckPath: '/health',
      HealthCheckIntervalSeconds: this.checks.interval,
      HealthCheckTimeoutSeconds: this.checks.timeout,
      HealthyThresholdCount: this.checks.healthy,
      UnhealthyThresholdCount: this.checks.unhealthy,
      LoadBalancerArns: [this.loadBalancerArn],
    };
  }

  groupAttributes(): XmlValue[] {
    return [...this.attributes].map(([Key, Value]) => ({ Key, Value }));
  }

  async health(named: readonly { Id: string; Port?: number }[], now: number): Promise<XmlValue[]> {
    const rows = await showStat(this.socket);
    const rowOf = (server: string) =>
      rows.find((r) => r.pxname === this.backend() && r.svname === server);
    const delay = Number(this.attributes.get('deregistration_delay.timeout_seconds')) * 1000;
    const checks = {
      intervalMs: this.checks.interval * 1000,
      healthy: this.checks.healthy,
      unhealthy: this.checks.unhealthy,
    };
    const report = (reg: Registration, h: ReportedHealth): XmlValue => {
      this.remember(reg.id, h.State);
      return {
        Target: { Id: reg.id, Port: reg.port },
        HealthCheckPort: String(reg.port),
        TargetHealth: { ...h },
      };
    };
    const out: XmlValue[] = [];
    if (named.length > 0) {
      for (const t of named) {
        const reg = this.targets.get(t.Id);
        if (!reg || (t.Port !== undefined && t.Port !== reg.port))
          throw new ApiError(
            'InvalidTarget',
            `The following targets are not valid target IDs: '${t.Id}'`,
          );
        out.push(report(reg, targetHealth(reg, rowOf(reg.server), checks, delay, now)));
      }
      return out;
    }
    for (const reg of this.targets.values()) {
      const h = targetHealth(reg, rowOf(reg.server), checks, delay, now);
      // as on AWS: a target whose deregistration finished is no longer listed
      if (h.State === 'unused') {
        this.remember(reg.id, 'unused');
        await this.complete(reg);
      } else out.push(report(reg, h));
    }
    return out;
  }

  async register(targets: readonly { Id: string; Port?: number }[], now: number): Promise<void> {
    for (const t of targets) {
      const reg = this.lookup(t);
      // as on AWS: registering a target that is registered already changes nothing
      // (its health included), which is how a rollout proves the permission
      if (reg.registered) continue;
      reg.registered = true;
      reg.registeredAt = now;
      reg.seenUp = false;
      reg.maint = false;
      delete reg.deregisteredAt;
      // a registered target earns `healthy` with the group's healthy threshold, like on AWS.
      // Until both commands are done it is `initial`: a DescribeTargetHealth between them
      // would see the server's old UP and call a target healthy that has passed no check
      reg.settling = true;
      try {
        await this.haproxy(`set server ${this.backend()}/${reg.server} state ready`);
        await this.haproxy(`set server ${this.backend()}/${reg.server} health down`);
      } finally {
        reg.settling = false;
      }
    }
  }

  async deregister(targets: readonly { Id: string; Port?: number }[], now: number): Promise<void> {
    const delay = Number(this.attributes.get('deregistration_delay.timeout_seconds')) * 1000;
    for (const t of targets) {
      const reg = this.lookup(t);
      if (!reg.registered) continue;
      reg.registered = false;
      reg.deregisteredAt = now;
      await this.haproxy(`set server ${this.backend()}/${reg.server} state drain`);
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.complete(reg).catch(() => undefined);
      }, delay);
      this.timers.add(timer);
    }
  }

  async modifyGroup(params: ReadonlyMap<string, string>): Promise<void> {
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
    for (const a of attributes)
      if (a.Key !== undefined && a.Value !== undefined) this.attributes.set(a.Key, a.Value);
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
  }

  /** The deregistration is over: HAProxy sends the server nothing at all. */
  private async complete(reg: Registration): Promise<void> {
    if (reg.registered || reg.maint) return;
    reg.maint = true;
    await this.haproxy(`set server ${this.backend()}/${reg.server} state maint`);
  }

  private lookup(t: { Id: string; Port?: number }): Registration {
    const reg = this.targets.get(t.Id);
    // the lab's hosts are the only targets its VPC has
    if (!reg || (t.Port !== undefined && t.Port !== reg.port))
      throw new ApiError(
        'InvalidTarget',
        `The following targets are not in the target group's VPC: '${t.Id}'`,
      );
    return reg;
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
