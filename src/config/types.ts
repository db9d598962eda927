/**
 * The normalized, frozen configuration every command works from.
 * All durations are milliseconds; all keys are camelCase; nothing optional is
 * left undefined where a default exists.
 */

import type { BalancerConfig } from './balancer-kinds.js';
import type { Duration } from './kit/duration.js';

export type { Duration };
export type { BalancerConfig };
export type { BalancerSsh, HealthCheckSettings } from './kit/balancer-entry.js';

export interface SshConfig {
  readonly user: string;
  readonly port: number;
  /** absolute path, `~` expanded; undefined = use ssh-agent */
  readonly identityFile?: string;
  /** absolute path, `~` expanded */
  readonly knownHosts: string;
  /** `[user@]host[:port]` of a bastion */
  readonly proxyJump?: string;
  readonly connectTimeout: Duration;
  /** SSH connections open at once; the other hosts queue (remote/connection-slots.ts) */
  readonly maxConnections: number;
  /** setup's privileged steps run through `sudo -n` (fleet/sudo.ts) */
  readonly sudo: boolean;
}

export interface HostConfig {
  readonly name: string;
  readonly address: string;
  /** the balancer's name for this host (instance id, IP, or server name) */
  readonly target: string;
  /** per-host SSH port; falls back to ssh.port */
  readonly sshPort?: number;
}

/** One entry of `balancers:` (or the `balancer:` block): its kind's settings, a name, its targets. */
export type BalancerEntry = BalancerConfig & {
  /** given in deploy.yml, or made from the kind and its target group or socket */
  readonly name: string;
  /** host name → this balancer's target, for the hosts it knows by another than hosts[].target */
  readonly targets: Readonly<Record<string, string>>;
};

export interface DrainConfig {
  readonly method: 'health' | 'deregister';
  /**
   * the health endpoint's status while drained: 404 only for a balancer that
   * reads it as a soft stop (its kind's `soft404`)
   */
  readonly answer: 503 | 404;
  readonly overlap: Duration;
  readonly maxRequest: Duration;
  readonly stopTimeout: Duration;
}

export type Batch =
  | { readonly kind: 'count'; readonly count: number }
  | { readonly kind: 'percent'; readonly percent: number };

export type MaxUnreachable =
  | { readonly kind: 'count'; readonly count: number }
  | { readonly kind: 'percent'; readonly percent: number };

export interface RolloutConfig {
  readonly batch: Batch;
  readonly minHealthy: number;
  readonly verifySuccesses: number;
  readonly verifyTimeout: Duration;
  readonly rollback: boolean;
  /** warning bound for the time a host needs to get back in rotation */
  readonly maxTimeBack: Duration;
  /** a failed host stops the rollout; `rollback` also returns the hosts already on the new release */
  readonly onFailure: 'stop' | 'rollback';
  /** a job that waited for the fleet lease behind a newer release: deploy anyway, or skip */
  readonly superseded: 'deploy' | 'skip';
  /** a host of the plan the network does not reach in preflight: refuse, or leave it out (exit 4) */
  readonly unreachable: 'fail' | 'skip';
  /** with `skip`: how many hosts of the plan may be left out (a count, or a percentage rounded down) */
  readonly maxUnreachable: MaxUnreachable;
  /** said explicitly: nothing may serve during a batch (one host); the capacity guard stands aside */
  readonly allowDowntime: boolean;
  /** a local .tar.gz, .tgz or directory; `{release}` is replaced by the release id */
  readonly artifact?: string;
  /** releases kept on each host after a successful rollout, besides current and previous */
  readonly keepReleases: number;
  /** hosts an artifact is uploaded to at once */
  readonly uploadConcurrency: number;
  /** the first wave, judged against the rest (docs/canary.md) */
  readonly canary?: CanaryConfig;
  /** ms between later waves, judged; 0 or absent: none */
  readonly bake?: Duration;
  /** ms after the last wave, judged; 0 or absent: none */
  readonly watch?: Duration;
  /** how every bake and the watch judge: the canary block's keys, or their defaults */
  readonly judgement?: JudgementConfig;
}

export interface JudgementConfig {
  readonly source: 'balancer' | 'service' | 'command';
  /** the command's absolute path, with source command */
  readonly command?: string;
  readonly commandTimeout: Duration;
  /** 0.01: one percentage point */
  readonly margin: number;
  readonly latencyMargin?: number;
  /** ms: a latency difference no larger is noise (rollout.canary.latency_floor) */
  readonly latencyFloor?: Duration;
  readonly minRequests: number;
  readonly inconclusive: 'fail' | 'pass';
  /** between reads during a bake */
  readonly poll: Duration;
}

export interface CanaryConfig {
  readonly hosts: Batch;
  readonly bake: Duration;
}

export interface HooksConfig {
  /** a hook running longer is killed and fails */
  readonly timeout: Duration;
}

export interface HostPaths {
  readonly root: string;
  readonly lock: string;
  readonly state: string;
  readonly agent: string;
}

export type RuntimeConfig =
  | {
      readonly kind: 'compose';
      readonly composeFile: string;
      /** argv words; absent: found on each host (compose-command.ts) */
      readonly composeCommand?: readonly string[];
    }
  | { readonly kind: 'command' };

/** A check's own hysteresis, overriding the watchdog's (deploy.yml: per check). */
export interface CheckThresholds {
  readonly failuresBeforeRestart?: number;
  readonly successesBeforeHealthy?: number;
}

export type CheckConfig = CheckThresholds &
  (
    | {
        readonly kind: 'http';
        readonly url: string;
        readonly timeout: Duration;
        readonly expectStatus: number;
        /** the answer must carry `x-release` equal to the release that should be live */
        readonly expectRelease: boolean;
      }
    | {
        readonly kind: 'tcp';
        readonly host: string;
        readonly port: number;
        readonly timeout: Duration;
      }
    | {
        readonly kind: 'heartbeat';
        /** relative to host.state, or absolute */
        readonly dir: string;
        readonly maxAge: Duration;
        /** a minimum over what the workers wrote in `dir/expected` */
        readonly expected?: number;
      }
    | { readonly kind: 'runtime'; readonly timeout: Duration }
  );

/** A shell command of the `command` runtime: run as `sh -c <command>` with RELEASE set. */
export type ShellCommand = string;

export interface ServiceConfig {
  readonly name: string;
  readonly check: CheckConfig;
  /** the service's HTTP keep-alive timeout, when it serves behind the balancer */
  readonly keepAliveTimeout?: Duration;
  /** command runtime only */
  readonly start?: ShellCommand;
  readonly stop?: ShellCommand;
  readonly status?: ShellCommand;
  /** `deploy logs` (command runtime): without it, the start command's output file */
  readonly logs?: ShellCommand;
  /**
   * after stop, prove it: the check's address refuses connections and the
   * runtime says stopped; false for a check through something that outlives it
   */
  readonly stopProof: boolean;
}

export interface WatchdogConfig {
  readonly every: Duration;
  readonly failuresBeforeRestart: number;
  readonly successesBeforeHealthy: number;
  readonly startPeriod: Duration;
  readonly maxRestarts: number;
  readonly restartWindow: Duration;
}

/** The release's `.env`: clear values as written, secrets by name only (values: rollout/release-env.ts). */
export interface EnvConfig {
  readonly clear: Readonly<Record<string, string>>;
  readonly secret: readonly string[];
  /**
   * where a secret's value comes from, by name, when not the orchestrator's
   * environment (secrets/); never in the host config, which names secrets only
   */
  readonly sources?: Readonly<Record<string, SecretSource>>;
}

/** An `env.secret` entry's source (config/secret-schema.ts), fetched once per rollout. */
export type SecretSource =
  | {
      readonly kind: 'aws_secret';
      readonly secretId: string;
      /** a field of the secret's JSON */
      readonly key?: string;
      readonly region?: string;
    }
  | { readonly kind: 'ssm'; readonly parameter: string; readonly region?: string }
  | { readonly kind: 'command'; readonly argv: readonly string[]; readonly timeout: Duration };

export interface Config {
  /** the file it was read from */
  readonly source: string;
  readonly service: string;
  readonly ssh: SshConfig;
  readonly hosts: readonly HostConfig[];
  /** every balancer in front of the hosts, at least one; `balancer:` is a list of one */
  readonly balancers: readonly BalancerEntry[];
  readonly drain: DrainConfig;
  readonly rollout: RolloutConfig;
  readonly host: HostPaths;
  readonly runtime: RuntimeConfig;
  readonly env: EnvConfig;
  readonly services: readonly ServiceConfig[];
  readonly watchdog: WatchdogConfig;
  readonly hooks: HooksConfig;
  readonly lease: LeaseConfig;
}

/** `lease:`: where the fleet lease lives; local file paths absolute, the password by its variable's name. */
export interface LeaseConfig {
  readonly store: 'hosts' | 'etcd';
  /** as written; empty: HANDOFF_ETCD_ENDPOINTS decides at use */
  readonly endpoints: readonly string[];
  readonly prefix: string;
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string };
  readonly username?: string;
  readonly passwordEnv: string;
}
