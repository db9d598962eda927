import { describe, expect, it } from 'vitest';
import { statusJson } from '../../../src/cli/fleet/status-command.js';
import { toJsonShape } from '../../../src/cli/json-keys.js';
import type { HostStatus } from '../../../src/protocol/results.js';

const base: HostStatus = {
  host: 'web-1',
  release: 'r2',
  previous: 'r1',
  releases: ['r1', 'r2'],
  lock: { locked: false },
  draining: null,
  watchdog: null,
};

describe('deploy status --json', () => {
  it('lists the watchdog’s services as objects, so a service name is never a mangled key', () => {
    const watchdog = {
      version: 1,
      services: { apiServer: { gaveUp: true, restarts: [1] } },
      skippedFor: 'x',
    };
    expect(toJsonShape(statusJson({ ...base, watchdog }))).toMatchObject({
      watchdog: {
        version: 1,
        skipped_for: 'x',
        services: [{ service: 'apiServer', gave_up: true, restarts: [1] }],
      },
    });
  });

  it('keeps a host whose watchdog has not run as it is', () => {
    expect(statusJson(base)).toEqual(base);
  });
});
