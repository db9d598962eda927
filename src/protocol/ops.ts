/**
 * Every operation of the `deploy host` agent, declared once. The agent's argv
 * (cli/commands/register-host.ts), its dispatch and the session's allow-lists
 * (host/agent/), and the client's one entry point (agent-client/client.ts
 * `run`, which callers call with the operation's name) are all read from this
 * table: adding an operation is an entry here, its handler on the host
 * (host/agent/handlers.ts) and the simulated host's answer
 * (scripts/bench/sim/agent.ts); tsc names the last two.
 *
 * Plain data on purpose: every agent process and watchdog tick loads it, and
 * neither may load a schema library to read a few flags.
 */
import type {
  ArtifactState,
  AuditRead,
  CommandExit,
  HelloData,
  HostStatus,
  ReleaseInventory,
  StartReport,
  StopReport,
  SwitchResult,
  VerifyReport,
} from './results.js';
import type { ServiceReading } from './results.js';
import type { LeaseAnswer } from './lease.js';
import type { LockHolder } from '../errors.js';
import { returns, type OpSpec, type Returns } from './spec.js';

const text = { kind: 'text' } as const;
const release = { kind: 'release' } as const;
const on = { kind: 'switch' } as const;
/**
 * The session's heartbeat: while a `lock-hold` session is open the orchestrator
 * keeps speaking, whatever it is waiting for (overlap, balancer polls,
 * verify): looked at every half of `everyMs`, a `heartbeat` call goes once
 * nothing went down for three halves, so no two lines are more than 1.5 ×
 * `everyMs` apart (half of `silenceMs`) and calls at least every `everyMs` need
 * no beat. A holder that hears nothing for `silenceMs` while no
 * call of its own runs ends the session: it releases the lock and leaves the drain
 * marker and its lease as they are (a frozen or vanished orchestrator; the
 * watchdog finishes the job once the lease is over).
 */
export const HEARTBEAT = Object.freeze({ everyMs: 5_000, silenceMs: 15_000 });
/** publishing may pull images (compose): as long as an exec'd publish may take */
const PUBLISH_MS = 15 * 60_000;

export const OPS = {
  hello: {
    channel: 'process',
    readOnly: true,
    args: {},
    timeoutMs: 15_000,
    result: returns<HelloData>(),
  },
  status: {
    channel: 'session',
    readOnly: true,
    args: {},
    timeoutMs: 15_000,
    result: returns<HostStatus>(),
  },
  publish: {
    channel: 'session',
    readOnly: false,
    // in a session the release document is an argument; stdin carries it otherwise
    args: { release: { kind: 'release', required: true }, files: text },
    stdin: 'files',
    timeoutMs: PUBLISH_MS,
    result: returns<unknown>(),
  },
  artifact: {
    channel: 'session',
    readOnly: false,
    // without `file`: is it here, and where to upload it; with it: install that upload
    args: {
      release: { kind: 'release', required: true },
      sha256: { kind: 'text', required: true },
      file: text,
    },
    timeoutMs: (a) => (a.file === undefined ? 60_000 : PUBLISH_MS),
    result: returns<ArtifactState>(),
  },
  'lock-hold': {
    channel: 'process',
    readOnly: false,
    // defer: start the session now, take the lock later (a `lock` call);
    // silenceMs: end after this long without a line from the orchestrator (HEARTBEAT)
    args: { what: text, message: text, defer: on, silenceMs: { kind: 'ms' } },
    result: returns<{ released: boolean; reason: string }>(),
  },
  // take the host lock in a session started with `defer`; what/message: who holds it, as the
  // holder file says (without them: the session's own)
  lock: {
    channel: 'holder',
    readOnly: false,
    args: { what: text, message: text },
    result: returns<{ holder: LockHolder }>(),
  },
  // give the lock back and keep the session: other hosts' turns and the rollout's end read
  // through it; released: false when it held none
  unlock: {
    channel: 'holder',
    readOnly: false,
    args: {},
    timeoutMs: 15_000,
    result: returns<{ released: boolean }>(),
  },
  // the orchestrator is alive: any line resets a session's silence, this one says nothing else
  heartbeat: {
    channel: 'session',
    readOnly: true,
    args: {},
    timeoutMs: HEARTBEAT.silenceMs,
    result: returns<Record<string, never>>(),
  },
  // this host's piece of the fleet lease (host/lease-file.ts); lease: the request, as JSON.
  // It touches nothing that runs: in the session before the lock too, and beside a running
  // step, so a heartbeat never waits behind a stop
  lease: {
    channel: 'session',
    readOnly: true,
    args: { action: { kind: 'text', required: true }, lease: text },
    timeoutMs: 15_000,
    result: returns<LeaseAnswer>(),
  },
  drain: {
    channel: 'locked',
    readOnly: false,
    args: {
      by: { kind: 'text', required: true },
      leaseMs: { kind: 'ms', required: true },
      release,
    },
    result: returns<unknown>(),
  },
  undrain: { channel: 'locked', readOnly: false, args: {}, result: returns<unknown>() },
  // release: the one about to start, whose stop adopts what runs on a host with none yet
  stop: { channel: 'locked', readOnly: false, args: { release }, result: returns<StopReport>() },
  switch: {
    channel: 'locked',
    readOnly: false,
    args: { release: { kind: 'release', required: true } },
    result: returns<SwitchResult>(),
  },
  start: {
    channel: 'locked',
    readOnly: false,
    // services: only these (comma-separated); ifStopped: only what its status says is stopped
    args: { services: text, ifStopped: on },
    result: returns<StartReport>(),
  },
  verify: {
    channel: 'locked',
    readOnly: true,
    // releaseOptional: an expect_release check accepts an answer without x-release
    args: {
      successes: { kind: 'count' },
      timeoutMs: { kind: 'ms' },
      allowDraining: on,
      releaseOptional: on,
    },
    timeoutMs: (a) => (typeof a.timeoutMs === 'number' ? a.timeoutMs + 30_000 : undefined),
    result: returns<VerifyReport>(),
  },
  // the checks' warm-up once the host is drained (host/checks/warm.ts): a pass of its HTTP
  // checks whose answers nobody reads, so verify's first is not the agent's first HTTP
  // request. Read-only: beside the others, and cut short when the session ends
  warm: {
    channel: 'locked',
    readOnly: true,
    args: {},
    timeoutMs: 60_000,
    result: returns<Record<string, never>>(),
  },
  // since: only entries that started at or after this time (ISO 8601)
  'audit-read': {
    channel: 'process',
    readOnly: true,
    args: { since: text },
    timeoutMs: 60_000,
    result: returns<AuditRead>(),
  },
  'lock-release': {
    channel: 'process',
    readOnly: false,
    args: { force: on },
    timeoutMs: 60_000,
    result: returns<{ released: boolean; reason?: string }>(),
  },
  releases: {
    channel: 'process',
    readOnly: true,
    args: {},
    timeoutMs: 60_000,
    result: returns<ReleaseInventory>(),
  },
  // the services' own counts (health library, countResponses) in host.state: a canary's source
  'service-counts': {
    channel: 'session',
    readOnly: true,
    args: {},
    timeoutMs: 15_000,
    result: returns<ServiceReading>(),
  },
  // which of these targets (comma-separated `[ipv4:]port`) a LISTEN socket on the host takes:
  // preflight's check of a balancer target that names its port (host/listening.ts)
  listening: {
    channel: 'session',
    readOnly: true,
    args: { targets: { kind: 'text', required: true } },
    timeoutMs: 15_000,
    result: returns<Record<string, boolean>>(),
  },
  // keep: releases kept besides current and previous. It takes the host lock itself, and
  // never touches current or previous: in a session that holds no lock (a rollout's end)
  prune: {
    channel: 'session',
    readOnly: false,
    args: { keep: { kind: 'count' } },
    timeoutMs: 5 * 60_000,
    result: returns<{ removed: string[]; kept: string[] }>(),
  },
  // the service's logs as the runtime knows them, each line an `output` event while it runs:
  // follow until the orchestrator closes stdin (Ctrl-C); since: compose's --since; tail: lines
  logs: {
    channel: 'process',
    readOnly: true,
    args: { follow: on, since: text, tail: { kind: 'count' } },
    result: returns<CommandExit>(),
  },
  // argv: the command as a JSON array of words, run without a shell in the live release's
  // directory with its environment; audited; refused while another holds the host lock
  // unless force gives the reason
  exec: {
    channel: 'process',
    readOnly: false,
    args: {
      argv: { kind: 'text', required: true },
      who: { kind: 'text', required: true },
      force: text,
    },
    result: returns<CommandExit>(),
  },
} as const satisfies Readonly<Record<string, OpSpec>>;

export type AgentOp = keyof typeof OPS;

type Decls<K extends AgentOp> = (typeof OPS)[K]['args'];
type ValueOf<S> = S extends { kind: 'switch' }
  ? boolean
  : S extends { kind: 'ms' | 'count' }
    ? number
    : string;
type Required<D> = { [A in keyof D]: D[A] extends { required: true } ? A : never }[keyof D];

/** The arguments of one operation, typed from its entry. */
export type ArgsOf<K extends AgentOp> = {
  readonly [A in Required<Decls<K>>]: ValueOf<Decls<K>[A]>;
} & { readonly [A in Exclude<keyof Decls<K>, Required<Decls<K>>>]?: ValueOf<Decls<K>[A]> };

export type ResultOf<K extends AgentOp> =
  (typeof OPS)[K]['result'] extends Returns<infer T> ? T : never;

export function isAgentOp(op: string): op is AgentOp {
  return Object.hasOwn(OPS, op);
}
