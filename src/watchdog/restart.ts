import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Config } from '../config/types.js';
import { messageOf } from '../errors.js';
import { appendAudit } from '../host/audit.js';
import type { createRuntime } from '../host/runtime/create.js';
import type { Log } from '../log.js';
import { restartStep } from './restart-record.js';

export interface Restart {
  readonly config: Config;
  readonly runtime: ReturnType<typeof createRuntime>;
  readonly service: string;
  readonly clock: Clock;
  readonly log: Log;
  readonly signal: AbortSignal;
  readonly release: string;
  /** the decision's time: the audit line's start, the same number the counters hold */
  readonly at: number;
  /** the counters were not saved: the audit line is the only record, so it comes first */
  readonly unsaved: boolean;
}

/**
 * One restart and its audit line. Normally the line follows the restart, with
 * its duration and result; when the counters could not be saved it is written
 * first, because it is then all that keeps the next tick from restarting the
 * service again — and a restart that cannot be recorded anywhere is refused.
 * False when the restart was not attempted.
 */
export async function restartOne(r: Restart): Promise<boolean> {
  const entry = {
    release: r.release,
    step: restartStep(r.service),
    start: new Date(r.at).toISOString(),
    who: `watchdog@${hostname()}`,
  };
  if (r.unsaved) {
    try {
      await appendAudit(r.config.host.root, {
        ...entry,
        duration_ms: 0,
        result: 'ok',
        detail: 'recorded before the restart: the counters could not be saved',
      });
    } catch (error) {
      // recorded nowhere, the next tick would restart it again, and the one after
      r.log.emit({
        level: 'error',
        event: 'watchdog.restart-failed',
        message: `${r.service}: not restarting it: neither host.state nor audit.jsonl can record the restart (${messageOf(error)}), and an unrecorded restart would repeat every tick`,
        fields: { service: r.service },
      });
      return false;
    }
  }
  let result: 'ok' | 'failed' = 'ok';
  try {
    await r.runtime.restart(r.service, { signal: r.signal });
  } catch (error) {
    result = 'failed';
    r.log.emit({
      level: 'error',
      event: 'watchdog.restart-failed',
      message: `${r.service}: restart failed: ${messageOf(error)}`,
      fields: { service: r.service },
    });
  }
  if (r.unsaved && result === 'ok') return true;
  await appendAudit(r.config.host.root, {
    ...entry,
    duration_ms: r.clock.now() - r.at,
    result,
  }).catch((error: unknown) => {
    if (!r.unsaved) throw error;
  });
  return true;
}
