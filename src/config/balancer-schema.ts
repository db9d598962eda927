import * as z from 'zod';
import { count, duration, durationOrZero, hostName, port, text, userName } from './fields.js';

/**
 * The balancer block: one shape per kind, and the health-check settings written
 * flat beside `kind`. They are required for `static` (there is no API to read
 * them from) and optional for the live kinds, where they are the desired state
 * for `deploy infra apply` and the fallback of `deploy check` without --live.
 */

export const healthCheckKeys = ['interval', 'timeout', 'unhealthy_threshold', 'healthy_threshold'];

function healthCheck() {
  return {
    interval: duration('time between two health checks of a target'),
    timeout: duration('how long one health check may take before it counts as failed'),
    unhealthy_threshold: count('consecutive failed checks before a target is out of rotation'),
    healthy_threshold: count('consecutive passed checks before a target is back in rotation'),
  };
}

function extras() {
  return {
    deregistration_delay: durationOrZero(
      'how long the balancer lets in-flight requests finish on a deregistered target',
    ).optional(),
    slow_start: durationOrZero('ramp-up time of a target that came back in rotation').optional(),
    idle_timeout: duration(
      "the balancer's keep-alive idle timeout towards targets (must be shorter than the services' keep_alive_timeout)",
    ).optional(),
  };
}

/**
 * What every entry of `balancers:` may carry besides its kind's settings: a
 * name for output, and the targets it knows the hosts by when they are not
 * `hosts[].target` (another port in a second target group, another server
 * name in a second backend).
 */
function entry() {
  return {
    name: hostName(
      'a name for output and messages (default: the kind and its target group or socket)',
    ).optional(),
    targets: z
      .record(
        hostName('a host name from hosts'),
        text("this balancer's name for the host: an instance id, IP or IP:port, a server name"),
      )
      .optional()
      .meta({
        description:
          "host name → this balancer's target for it, ports included (default: hosts[].target)",
      }),
  };
}

/**
 * The balancer's own host, reached over SSH with the fleet's known_hosts, keys,
 * agent and ProxyJump: a name or address, or the address with its own port and user.
 */
function balancerSsh() {
  return z
    .union([
      text('the balancer host: a name or address, reached with ssh.port and ssh.user'),
      z.strictObject({
        address: text('the balancer host: a name or address'),
        port: port('its SSH port (default: ssh.port)').optional(),
        user: userName('the SSH user there (default: ssh.user)').optional(),
      }),
    ])
    .optional()
    .meta({
      description:
        "the balancer's own host over SSH: its socket or files are there, and its config is read there (absent: this machine)",
    });
}

function optionalHealthCheck() {
  const { interval, timeout, unhealthy_threshold, healthy_threshold } = healthCheck();
  return {
    interval: interval.optional(),
    timeout: timeout.optional(),
    unhealthy_threshold: unhealthy_threshold.optional(),
    healthy_threshold: healthy_threshold.optional(),
  };
}

const alb = z.strictObject({
  kind: z.literal('alb'),
  target_group_arn: z
    .string()
    .regex(/^arn:aws[a-z-]*:elasticloadbalancing:/, {
      error: 'must be a target group ARN (arn:aws:elasticloadbalancing:…)',
    })
    .meta({ description: 'the target group the hosts are registered in' }),
  region: text(
    "AWS region of the target group, e.g. eu-west-1; default: the SDK's (AWS_REGION, the profile's region)",
  ).optional(),
  type: z
    .enum(['application', 'network'], { error: 'must be application or network' })
    .optional()
    .meta({
      description:
        "the type of the target group's load balancer, whose value ranges deploy.yml is held to (default: application)",
    }),
  ...optionalHealthCheck(),
  ...extras(),
  ...entry(),
});

const haproxy = z.strictObject({
  kind: z.literal('haproxy'),
  socket: text(
    'HAProxy runtime API: a unix socket path (on the ssh host, when ssh is set) or tcp://host:port',
  ),
  ssh: balancerSsh(),
  backend: text('the backend whose servers are the hosts'),
  config: text(
    "haproxy's config file, read for inter and timeout check, which the runtime API does not report",
  ).optional(),
  ...optionalHealthCheck(),
  ...extras(),
  ...entry(),
});

const nginx = z.strictObject({
  kind: z.literal('nginx'),
  config: text(
    "the file that holds the upstream block; handoff rewrites its server lines (marks one 'down'), so it should own it",
  ),
  upstream: text('the upstream whose server lines are the hosts (hosts[].target: ADDRESS:PORT)'),
  ssh: balancerSsh(),
  main_config: text(
    "nginx's main config, given to nginx -c for its test and reload, and read for its pid file and worker_shutdown_timeout (default /etc/nginx/nginx.conf)",
  ).optional(),
  ...optionalHealthCheck(),
  ...extras(),
  ...entry(),
});

const staticKind = z.strictObject({
  kind: z.literal('static'),
  ...healthCheck(),
  ...extras(),
  ...entry(),
});

export const balancerSchema = z
  .discriminatedUnion('kind', [alb, haproxy, nginx, staticKind], {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'must be one of alb, haproxy, nginx, static' : undefined,
  })
  .meta({ description: 'a load balancer in front of the hosts' });

export const balancersSchema = z
  .array(balancerSchema)
  .min(1, { error: 'needs at least one balancer' })
  .meta({
    description:
      'every balancer in front of the hosts (an HAProxy pair, several target groups, a mix); a host is out of rotation only when every one says so',
  });

export type RawBalancer = z.output<typeof balancerSchema>;
