import path from 'node:path';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { CommandCountSource } from './command-source.js';
import { readHaproxyCounters } from './haproxy-read.js';
import { HaproxyCountSource } from './haproxy-source.js';
import { ServiceCountSource, type ReadHost } from './service-source.js';
import type { EvidenceSource } from './source.js';

/**
 * The source deploy.yml asks for, or why there is none: the receipt is
 * HAProxy's (any source judges a canary, only HAProxy's counters are the
 * balancer's own word on what reached nowhere).
 */
export function receiptSource(config: Config, clock: Clock): EvidenceSource | undefined {
  // one HAProxy in front of the fleet: its counters see every request; of a pair, one
  // instance sees only its share, so a receipt from it alone would undercount
  const [b, ...more] = config.balancers;
  if (!b || more.length > 0 || b.kind !== 'haproxy') return undefined;
  const where = { socket: b.socket, backend: b.backend };
  return new HaproxyCountSource(
    () => readHaproxyCounters(where),
    new Map(config.hosts.map((h) => [h.name, b.targets[h.name] ?? h.target])),
    clock,
    b.backend,
  );
}

export function judgementSource(
  config: Config,
  clock: Clock,
  readHost?: ReadHost,
): { source: EvidenceSource } | { missing: string } {
  const j = config.rollout.judgement;
  const source = j?.source ?? 'balancer';
  if (source === 'balancer') {
    const s = receiptSource(config, clock);
    return s ? { source: s } : { missing: 'source balancer needs one balancer of kind haproxy' };
  }
  if (source === 'command' && j?.command !== undefined)
    return {
      source: new CommandCountSource({
        file: j.command,
        cwd: path.dirname(path.resolve(config.source)),
        timeoutMs: j.commandTimeout,
        service: config.service,
        targets: new Map(config.hosts.map((h) => [h.name, h.target])),
        clock,
      }),
    };
  if (source === 'service' && readHost !== undefined)
    return { source: new ServiceCountSource(readHost, () => clock.now()) };
  return { missing: `source ${source} cannot be read here` };
}

/** What a rollout is given to count with (built in cli/, faked in tests). */
export interface EvidenceDeps {
  readonly receipt?: EvidenceSource;
  judgement(): { source: EvidenceSource } | { missing: string };
}

/** `readHost`: each host's agent's `service-counts`, for source service */
export function evidenceDeps(config: Config, clock: Clock, readHost?: ReadHost): EvidenceDeps {
  const receipt = receiptSource(config, clock);
  return {
    ...(receipt && { receipt }),
    judgement: () => judgementSource(config, clock, readHost),
  };
}
