import * as z from 'zod';
import { balancerSchema, balancersSchema, soft404Words } from './balancer-kinds.js';
import { bakeKeys, canarySchema } from './canary-schema.js';
import { cronPlan } from './cron-every.js';
import { leaseSchema } from './lease-schema.js';
import {
  count,
  duration,
  envName,
  hostName,
  hostPath,
  port,
  serviceName,
  text,
  userName,
} from './kit/fields.js';
import { secretEntry } from './secret-schema.js';
import { serviceSchema } from './service-schema.js';

/**
 * deploy.yml as written: snake_case keys, durations as text. Parsing turns the
 * durations into milliseconds and fills every default that does not depend on
 * another key; normalize.ts does the rest. Every object is strict, because a
 * typo such as `unhealty_threshold` must not silently fall back to a default.
 */

const ssh = z
  .strictObject({
    user: userName('the SSH user on every host; also the user the watchdog runs as'),
    port: port('SSH port (a host may override it with ssh_port)').default(22),
    identity_file: text('private key; without it, ssh-agent is used').optional(),
    known_hosts: text('strict known_hosts: an unknown or changed host key is refused').default(
      '~/.ssh/known_hosts',
    ),
    proxy_jump: text('a bastion, [user@]host[:port]').optional(),
    connect_timeout: duration('how long to wait for an SSH connection').prefault('10s'),
    max_connections: count(
      'SSH connections open at once; further hosts wait their turn (their connect_timeout starts then)',
    )
      .max(10_000, { error: 'is too large (at most 10000)' })
      .default(50),
    sudo: z.boolean().default(false).meta({
      description:
        "run setup's privileged steps (/etc/cron.d, /etc/handoff, the agent and host directories) through sudo -n",
    }),
  })
  .meta({ description: 'how to reach the hosts' });

const env = z
  .strictObject({
    clear: z
      .record(envName('a variable name'), z.string({ error: 'must be text (quote numbers)' }))
      .default({})
      .meta({ description: "variables written into each release's .env as they are" }),
    secret: z.array(secretEntry).default([]).meta({
      description:
        "names read at rollout time — from the orchestrator's environment, AWS Secrets Manager, SSM Parameter Store or a command — written into .env; the values never reach output, the audit log or the host config",
    }),
  })
  .meta({ description: "the release's .env (mode 0600)" });

const host = z.strictObject({
  name: hostName('a short name used in output, --hosts and locks'),
  address: text('where SSH connects: IP address or DNS name'),
  target: text("the balancer's name for the host (default: address)").optional(),
  ssh_port: port('SSH port of this host (default: ssh.port)').optional(),
});

const drain = z
  .strictObject({
    method: z
      .enum(['health', 'deregister'], { error: 'must be health or deregister' })
      .default('health')
      .meta({
        description: 'health: the health endpoint answers 503; deregister: via the balancer API',
      }),
    answer: z
      .union([z.literal(503), z.literal(404)], { error: 'must be 503 or 404' })
      .default(503)
      .meta({
        description: `the health endpoint's status while drained: 503, or 404 for ${soft404Words} (a soft stop: persistent connections still served)`,
      }),
    overlap: duration('how long a host keeps serving after it is out of rotation').prefault('15s'),
    max_request: duration('the longest request allowed to finish').prefault('30s'),
    stop_timeout: duration("the services' SIGTERM → SIGKILL grace").prefault('150s'),
  })
  .meta({ description: 'how a host leaves rotation' });

const batch = z
  .union(
    [
      z.number().int({ error: 'must be a whole number' }).min(1, { error: 'must be at least 1' }),
      z
        .string()
        .regex(/^\d{1,3}%$/, { error: 'must be a number of hosts or a percentage like "25%"' }),
    ],
    { error: 'must be a number of hosts or a percentage like "25%"' },
  )
  .transform((value, ctx) => {
    if (typeof value === 'number') return { kind: 'count' as const, count: value };
    const percent = Number(value.slice(0, -1));
    if (percent < 1 || percent > 100) {
      ctx.addIssue({ code: 'custom', message: 'a percentage must be between 1% and 100%' });
      return z.NEVER;
    }
    return { kind: 'percent' as const, percent };
  })
  .meta({
    description: 'hosts deployed at once: a number, or a percentage of the fleet like "25%"',
  });

const maxUnreachable = z
  .union(
    [
      z.number().int({ error: 'must be a whole number' }).min(0, { error: 'must be 0 or more' }),
      z.string().regex(/^\d{1,3}%$/, {
        error: 'must be a number of hosts or a percentage like "2%"',
      }),
    ],
    { error: 'must be a number of hosts or a percentage like "2%"' },
  )
  .transform((value, ctx) => {
    if (typeof value === 'number') return { kind: 'count' as const, count: value };
    const percent = Number(value.slice(0, -1));
    if (percent > 100) {
      ctx.addIssue({ code: 'custom', message: 'a percentage must be between 0% and 100%' });
      return z.NEVER;
    }
    return { kind: 'percent' as const, percent };
  })
  .meta({
    description:
      'with unreachable: skip, at most this many hosts of the plan (or a percentage of it, rounded down) may be left out',
  });

const rollout = z
  .strictObject({
    batch: batch.prefault(1),
    min_healthy: count('never drain below this many other healthy targets', 0).default(1),
    verify_successes: count('passes in a row that confirm a host').default(2),
    verify_timeout: duration('how long a started host may take to verify').prefault('120s'),
    rollback: z.boolean().default(true).meta({ description: 'roll a failed host back' }),
    max_time_back: duration('warn when a host needs longer to get back in rotation').prefault(
      '60s',
    ),
    on_failure: z.enum(['stop', 'rollback']).default('stop').meta({
      description:
        'when a host fails: stop there, or also roll back every host already on the new release',
    }),
    superseded: z.enum(['deploy', 'skip']).default('deploy').meta({
      description:
        'a job that waited for the fleet lease (--wait-lease) while a newer release deployed: deploy its older one anyway, or skip (exit 0, "superseded")',
    }),
    unreachable: z.enum(['fail', 'skip']).default('fail').meta({
      description:
        'a host of the plan the network does not reach in preflight: refuse the rollout (fail), or leave it out, count it as not serving and exit 4 (skip)',
    }),
    max_unreachable: maxUnreachable.prefault(1),
    allow_downtime: z.boolean().default(false).meta({
      description:
        'accept that nothing serves while a batch deploys (a one-host fleet): the capacity guard and invariant stand aside',
    }),
    artifact: text(
      'a .tar.gz, .tgz or directory shipped into releases/<id>/ during prepare; {release} is replaced by the release id',
    ).optional(),
    keep_releases: count(
      'releases each host keeps after a successful rollout, besides current and previous',
    ).default(5),
    upload_concurrency: count('hosts an artifact is uploaded to at once').default(4),
    canary: canarySchema(batch.prefault(1)).optional(),
    ...bakeKeys,
  })
  .meta({ description: 'how the fleet is walked' });

const hooks = z
  .strictObject({
    timeout: duration('a hook running longer is killed (with its children) and fails').prefault(
      '5m',
    ),
  })
  .meta({ description: 'the executables in .handoff/hooks/ beside deploy.yml' });

const hostPaths = z
  .strictObject({
    root: hostPath(
      'releases/, current and audit.jsonl (default /srv/handoff/<service>)',
    ).optional(),
    lock: hostPath(
      'the one host lock, in a directory only root writes (default /run/handoff/<service>.lock)',
    ).optional(),
    state: hostPath(
      'tmpfs: drain marker, watchdog state, marks (default /run/handoff/<service>)',
    ).optional(),
    agent: hostPath('where setup installs the agent (default /opt/handoff)').optional(),
  })
  .meta({ description: 'paths on every host' });

const runtime = z
  .discriminatedUnion(
    'kind',
    [
      z.strictObject({
        kind: z.literal('compose'),
        compose_file: text('the compose file, relative to this file; published with each release'),
        compose_command: z.array(text('one word of the compose command')).min(1).optional().meta({
          description:
            'the compose command on the hosts, as words (default: docker compose, else docker-compose, else podman-compose)',
        }),
      }),
      z.strictObject({ kind: z.literal('command') }),
    ],
    {
      error: (issue) =>
        issue.code === 'invalid_union' ? 'must be one of compose, command' : undefined,
    },
  )
  .meta({ description: 'how services are started and stopped' });

const watchdog = z
  .strictObject({
    every: duration(
      'how often cron runs a tick: 1s–30s or 1m–30m dividing a minute or an hour, or 1h',
    )
      .superRefine((ms, ctx) => {
        const plan = cronPlan(ms);
        if (!plan.ok) ctx.addIssue({ code: 'custom', message: plan.reason });
      })
      .prefault('60s'),
    failures_before_restart: count('consecutive failed checks before a restart').default(4),
    successes_before_healthy: count(
      'consecutive passes before a service counts as healthy',
    ).default(2),
    start_period: duration('grace after a (re)start before failures count').prefault('60s'),
    max_restarts: count('restarts allowed within restart_window').default(3),
    restart_window: duration('the window max_restarts counts in').prefault('30m'),
  })
  .meta({ description: 'the self-healing tick on every host' });

export const configSchema = z
  .strictObject({
    service: serviceName('[a-z0-9-]; names the lock and state paths'),
    ssh,
    hosts: z.array(host).min(1, { error: 'needs at least one host' }),
    // one of the two (rules.ts): `balancer:` is the one-element spelling of `balancers:`
    balancer: balancerSchema.optional(),
    balancers: balancersSchema.optional(),
    drain: drain.prefault({}),
    rollout: rollout.prefault({}),
    host: hostPaths.prefault({}),
    runtime,
    env: env.prefault({}),
    services: z.array(serviceSchema).min(1, { error: 'needs at least one service' }),
    watchdog: watchdog.prefault({}),
    hooks: hooks.prefault({}),
    lease: leaseSchema.prefault({}),
  })
  .meta({ title: 'handoff deploy.yml', description: 'zero-downtime rolling deploys' });

/** deploy.yml after parsing: snake_case, durations in ms, simple defaults filled. */
export type RawConfig = z.output<typeof configSchema>;
/** deploy.yml as written. */
export type RawConfigInput = z.input<typeof configSchema>;
