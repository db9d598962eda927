import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../../../src/clock.js';
import { leaseCall } from '../../../src/host/agent/ops/lease.js';
import { checkArgs, readFlags, type CallArgs } from '../../../src/protocol/args.js';
import type { AgentErrorInfo } from '../../../src/protocol/lines.js';
import { PROTOCOL } from '../../../src/protocol/lines.js';
import {
  isAgentOp,
  OPS,
  type AgentOp,
  type ArgsOf,
  type ResultOf,
} from '../../../src/protocol/ops.js';
import type { DrainMarkerData } from '../../../src/protocol/results.js';

/** What one simulated host runs and whether it is drained: the agent's state, in memory. */
export class SimHostState {
  release: string | null = 'r1';
  previous: string | null = null;
  releases = new Set(['r1']);
  draining: DrainMarkerData | null = null;
  /** when the drain marker last came or went (the balancer's checks see it from then) */
  changedAt = 0;
  locked = false;
  /** operations answered, by name: what the orchestrator asked of this host */
  readonly calls = new Map<string, number>();
  private stateDir: Promise<string> | undefined;
  constructor(
    readonly name: string,
    /** how long one service check takes (verify waits this per success) */
    readonly checkMs: number,
    /** the simulation's work directory: the host's state directory is made in it when needed */
    private readonly workDir: string,
  ) {}

  /** a state directory of its own: the fleet lease's piece lives there */
  state(): Promise<string> {
    const dir = path.join(this.workDir, 'state', this.name);
    this.stateDir ??= mkdir(dir, { recursive: true }).then(() => dir);
    return this.stateDir;
  }
}

type Answers = { readonly [K in AgentOp]: (a: ArgsOf<K>, h: SimHostState) => Promise<ResultOf<K>> };

const SERVICES = ['app'];
const now = () => new Date().toISOString();

/**
 * One answer per operation of the protocol table (src/protocol/ops.ts): the
 * type checker refuses a table entry without its answer here, and each
 * answer has the result type the table gives it, so the simulation cannot
 * drift from the agent's protocol.
 */
const ANSWERS: Answers = {
  hello: () =>
    Promise.resolve({ version: 'sim', protocol: PROTOCOL, sha256: 'sim', node: '24.0.0' }),
  status: (_a, h) =>
    Promise.resolve({
      host: h.name,
      release: h.release,
      previous: h.previous,
      releases: [...h.releases],
      lock: { locked: h.locked },
      draining: h.draining,
      watchdog: null,
      lastStop: null,
    }),
  publish: (a, h) => {
    h.releases.add(a.release);
    return Promise.resolve(null);
  },
  artifact: () => Promise.resolve({ present: true }),
  // answered by the session itself (session.ts): never dispatched here
  'lock-hold': () => Promise.reject(new Error('lock-hold is a session')),
  lock: () => Promise.reject(new Error('lock is a call of the session')),
  unlock: () => Promise.reject(new Error('unlock is a call of the session')),
  drain: (a, h) => {
    if (!h.draining) h.changedAt = Date.now();
    const until = new Date(Date.now() + a.leaseMs).toISOString();
    h.draining = { by: a.by, since: now(), until, ...(a.release ? { release: a.release } : {}) };
    return Promise.resolve(null);
  },
  undrain: (_a, h) => {
    if (h.draining) h.changedAt = Date.now();
    h.draining = null;
    return Promise.resolve(null);
  },
  stop: () =>
    Promise.resolve({
      stopped: true,
      adopted: [],
      proven: true,
      services: SERVICES.map((service) => ({ service, proven: true, detail: 'simulated' })),
    }),
  switch: (a, h) => {
    const previous = h.release;
    if (!h.releases.has(a.release))
      return Promise.reject(new Error(`release ${a.release} is not on ${h.name}`));
    h.previous = previous;
    h.release = a.release;
    return Promise.resolve({ previous, current: a.release });
  },
  start: () => Promise.resolve({ started: SERVICES, running: [] }),
  verify: async (a, h) => {
    const successes = a.successes ?? 1;
    const started = Date.now();
    await sleep(h.checkMs * successes);
    const draining = h.draining !== null;
    const ok = !draining || a.allowDraining === true;
    return {
      ok,
      elapsed_ms: Date.now() - started,
      services: SERVICES.map((name) => ({
        name,
        ok,
        code: ok ? 'ok' : 'draining',
        latency_ms: 1,
        passes: ok ? successes : 0,
        ...(draining ? { draining: true } : {}),
        ...(h.release ? { release: h.release } : {}),
      })),
    };
  },
  heartbeat: () => Promise.resolve({}),
  // no service answers HTTP here: nothing to warm
  warm: () => Promise.resolve({}),
  // the host's piece of the fleet lease, by the agent's own code on a directory of its own
  lease: async (a, h) => {
    const dir = await h.state();
    return leaseCall({ state: dir, root: dir }, systemClock, a.action, a.lease);
  },
  // no service counts its answers here: a canary with source service reads nothing
  'service-counts': () => Promise.resolve({ processes: {} }),
  // a simulated host listens wherever its balancer sends traffic
  listening: (a) => Promise.resolve(Object.fromEntries(a.targets.split(',').map((t) => [t, true]))),
  'audit-read': () => Promise.resolve({ entries: [], truncated: false, skipped: 0 }),
  'lock-release': () => Promise.resolve({ released: false, reason: 'not locked' }),
  releases: (_a, h) =>
    Promise.resolve({
      current: h.release,
      previous: h.previous,
      releases: [...h.releases].map((id) => ({
        id,
        createdMs: 0,
        ageMs: 0,
        bytes: 0,
        artifactSha256: null,
        composeSha256: null,
      })),
    }),
  prune: (_a, h) => Promise.resolve({ removed: [], kept: [...h.releases] }),
  // operator commands: a simulated rollout never asks for them
  logs: (_a, h) => Promise.resolve({ release: h.release ?? '', code: 0 }),
  exec: (_a, h) => Promise.resolve({ release: h.release ?? '', code: 0 }),
};

export type Outcome = { ok: true; data: unknown } | { ok: false; error: AgentErrorInfo };

/** One operation with its arguments checked against the table, as the agent checks them. */
export async function answer(op: string, args: CallArgs, host: SimHostState): Promise<Outcome> {
  try {
    if (!isAgentOp(op)) return refusal('bad-request', `unknown operation ${op}`, 2);
    checkArgs(op, args);
    host.calls.set(op, (host.calls.get(op) ?? 0) + 1);
    const run = ANSWERS[op] as (a: CallArgs, h: SimHostState) => Promise<unknown>;
    return { ok: true, data: (await run(args, host)) ?? null };
  } catch (error) {
    return refusal('failed', (error as Error).message, 1);
  }
}

const refusal = (code: string, message: string, exit: number): Outcome => ({
  ok: false,
  error: { code, message, exit },
});

/**
 * `<agent> host <op> --config F --flags… [--expect-agent SHA]` as the client
 * writes it (client.ts argv): the operation and its flags, read by the table.
 */
export function parseAgentArgv(argv: readonly string[]): { op: string; args: CallArgs } {
  const [, word, op = '', ...rest] = argv;
  if (word !== 'host') throw new Error(`not an agent command: ${argv.join(' ')}`);
  const decls: Readonly<Record<string, { kind: string }>> = isAgentOp(op) ? OPS[op].args : {};
  const flags: Record<string, string | boolean> = {};
  for (let i = 0; i < rest.length; i += 1) {
    const name = (rest[i] ?? '')
      .replace(/^--/, '')
      .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());
    if (decls[name]?.kind === 'switch') flags[name] = true;
    else {
      flags[name] = rest[i + 1] ?? '';
      i += 1;
    }
  }
  const { config: _config, expectAgent: _expect, ...own } = flags;
  return { op, args: isAgentOp(op) ? readFlags(op, own) : {} };
}
