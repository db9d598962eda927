import { open } from 'node:fs/promises';
import { auditLogPath } from '../host/layout.js';
import type { WatchdogState } from './state.js';

/** the newest watchdog lines are at the end; a restart window's worth fits many times over */
const TAIL_BYTES = 256 * 1024;

export const restartStep = (service: string): string => `watchdog.restart ${service}`;

/**
 * The restarts audit.jsonl remembers, per service asked, newer than `since`.
 * audit.jsonl lives in host.root, not host.state: when the counters could not
 * be saved (a full tmpfs), it is the record that keeps the next ticks from
 * restarting again and again. Read only when a restart is due, so a tick
 * that restarts nothing never opens it.
 */
export async function auditedRestarts(
  root: string,
  services: readonly string[],
  since: number,
  now: number,
): Promise<Map<string, number[]>> {
  const steps = new Map(services.map((s) => [restartStep(s), s]));
  const found = new Map<string, number[]>();
  for (const line of await tailLines(auditLogPath(root))) {
    const entry = parse(line);
    const service = entry && steps.get(entry.step);
    if (!entry || service === undefined) continue;
    // a line from the future (the clock stepped back) happened now at the latest
    const at = Math.min(Date.parse(entry.start), now);
    if (!(at >= since)) continue;
    found.set(service, [...(found.get(service) ?? []), at]);
  }
  return found;
}

/** The state with the audited restarts added to each service's own, once each. */
export function withRestarts(
  state: WatchdogState,
  audited: ReadonlyMap<string, readonly number[]>,
): WatchdogState {
  let changed = false;
  const services = { ...state.services };
  for (const [service, times] of audited) {
    const memory = services[service];
    if (!memory) continue;
    const known = new Set(memory.restarts);
    const added = [...new Set(times)].filter((t) => !known.has(t));
    if (added.length === 0) continue;
    changed = true;
    services[service] = {
      ...memory,
      restarts: [...memory.restarts, ...added].sort((a, b) => a - b),
    };
  }
  return changed ? { ...state, services } : state;
}

async function tailLines(file: string): Promise<string[]> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return []; // no audit yet: nothing was ever restarted here
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - TAIL_BYTES);
    const buffer = Buffer.alloc(size - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    const lines = buffer.toString('utf8', 0, bytesRead).split('\n');
    // the first line of a tail may be cut
    return start > 0 ? lines.slice(1) : lines;
  } catch {
    return [];
  } finally {
    await handle.close();
  }
}

function parse(line: string): { step: string; start: string } | undefined {
  if (!line.includes('"watchdog.restart ')) return undefined;
  try {
    const value = JSON.parse(line) as { step?: unknown; start?: unknown };
    return typeof value.step === 'string' && typeof value.start === 'string'
      ? { step: value.step, start: value.start }
      : undefined;
  } catch {
    return undefined;
  }
}
