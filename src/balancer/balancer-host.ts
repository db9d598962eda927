import type { BalancerSsh, SshConfig } from '../config/types.js';
import { UsageError } from '../errors.js';
import type { SshTransport } from '../remote/ssh.js';

/**
 * One SSH connection to a balancer's own host, opened on first use and reused
 * by every call of the command (as the hosts' are), with the fleet's strict
 * known_hosts, keys, agent and ProxyJump; its port and user may be its own.
 */
export class BalancerHost {
  private connection: Promise<SshTransport> | undefined;

  constructor(
    private readonly ssh: BalancerSsh,
    private readonly fleet: SshConfig | undefined,
    /** the balancer's name, for messages */
    private readonly name: string,
  ) {}

  get where(): string {
    return this.ssh.address;
  }

  connect(): Promise<SshTransport> {
    this.connection ??= this.open();
    // a failed attempt is not kept: the next call tries again
    this.connection.catch(() => (this.connection = undefined));
    return this.connection;
  }

  /** `cat FILE` there: the balancer's config, read where it is */
  async read(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string }> {
    const r = await (await this.connect()).exec(['cat', '--', file]);
    if (r.code === 0) return { ok: true, text: r.stdout };
    return { ok: false, reason: r.stderr.trim().split('\n')[0] ?? `cat exited ${r.code}` };
  }

  async close(): Promise<void> {
    const open = this.connection;
    this.connection = undefined;
    await (await open?.catch(() => undefined))?.close();
  }

  private async open(): Promise<SshTransport> {
    if (!this.fleet)
      throw new UsageError(`balancer ${this.name}: ssh is set but no ssh settings were passed`);
    const { connectSsh } = await import('../remote/ssh.js');
    const host = {
      name: `balancer ${this.name} (${this.ssh.address})`,
      address: this.ssh.address,
      target: '',
      ...(this.ssh.port !== undefined && { sshPort: this.ssh.port }),
    };
    return connectSsh(host, { ...this.fleet, user: this.ssh.user ?? this.fleet.user });
  }
}
