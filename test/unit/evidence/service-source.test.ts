import { describe, expect, it } from 'vitest';
import { OperationError } from '../../../src/errors.js';
import type { ServiceReading } from '../../../src/protocol/results.js';
import { ServiceCountSource, type ReadHost } from '../../../src/evidence/service-source.js';
import { readOrUnread } from '../../../src/evidence/kit/source.js';
import type { ResponseCountsFile } from '../../../src/health/response-counts.js';

const file = (requests: number, errors: number, started = 1): ResponseCountsFile => ({
  v: 1,
  pid: 7,
  started,
  at: 0,
  requests,
  classes: [0, requests - errors, 0, 0, errors],
  time_ms: requests * 2,
});
const reading = (processes: Record<string, ResponseCountsFile>): ServiceReading => ({ processes });

/** each host answers its readings in turn; an Error is a read that failed */
function hosts(script: Record<string, (ServiceReading | Error)[]>): ReadHost {
  return (host) => {
    const next = script[host]?.shift();
    if (next === undefined) return Promise.reject(new Error(`${host}: no more readings`));
    return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
  };
}

describe('ServiceCountSource (rollout.canary.source: service)', () => {
  it("counts each host's 5xx from its agent's readings, a restarted service's new process included", async () => {
    const source = new ServiceCountSource(
      hosts({
        h1: [reading({ '7-1': file(100, 1) }), reading({ '7-1': file(400, 4) })],
        // the old process stopped (its last figure stays), a new one counts from zero
        h2: [
          reading({ '7-1': file(50, 0) }),
          reading({ '7-1': file(50, 0), '8-9': file(120, 60, 9) }),
        ],
      }),
      () => 1000,
    );
    expect(source.kind).toBe('service');
    const window = await source.open(['h1', 'h2']);
    expect(window.openedAt).toBe(1000);
    const counts = await window.read();
    expect(counts.get('h1')).toEqual({
      kind: 'counted',
      counts: { requests: 300, failed: 3, kinds: { http_5xx: 3 }, latencyMs: 2 },
    });
    expect(counts.get('h2')).toMatchObject({
      kind: 'counted',
      counts: { requests: 120, failed: 60 },
    });
  });

  it('a host unread at the opening fails the opening (retried by the bake), one unread later is that host only', async () => {
    const refused = new ServiceCountSource(
      hosts({ h1: [reading({})], h2: [new Error('ssh: connect ETIMEDOUT\nstack')] }),
      () => 0,
    );
    const error = await refused.open(['h1', 'h2']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OperationError);
    expect((error as Error).message).toBe(
      "h2: the services' counts could not be read: ssh: connect ETIMEDOUT",
    );

    const later = new ServiceCountSource(
      hosts({
        h1: [reading({ '7-1': file(10, 0) }), reading({ '7-1': file(20, 0) })],
        h2: [reading({}), new Error('agent gone')],
      }),
      () => 0,
    );
    const window = await later.open(['h1', 'h2']);
    const counts = await readOrUnread(window, ['h1', 'h2']);
    expect(counts.get('h1')).toMatchObject({ kind: 'counted', counts: { requests: 10 } });
    expect(counts.get('h2')).toEqual({
      kind: 'unread',
      reason: "h2: the services' counts could not be read: agent gone",
    });
  });
});
