import { describe, expect, it } from 'vitest';
import {
  killedAtLastStop,
  readLastStops,
  renderLastStops,
} from '../../../src/cli/check/check-last-stops.js';
import type { Output } from '../../../src/cli/output.js';
import { testConfig } from '../../support/config.js';

function textOutput() {
  const lines: string[] = [];
  const out: Output = {
    json: false,
    emit: () => undefined,
    text: (t) => void lines.push(...t.split('\n')),
    result: () => undefined,
    raw: () => undefined,
  };
  return { out, lines };
}

const at = '2026-11-30T10:00:00.000Z';

describe('deploy check --live: each host’s last stop', () => {
  it('names each service that needed SIGKILL with its host and release, and a host it cannot see', async () => {
    const stops = await readLastStops(testConfig(), (host) => {
      if (host === 'web-1') return Promise.resolve({ at, release: 'r2', killed: ['app'] });
      if (host === 'web-2') return Promise.resolve({ at, release: 'r2', killed: [] });
      return Promise.reject(new Error('connection refused'));
    });
    expect(killedAtLastStop(stops)).toEqual([
      { host: 'web-1', last: { at, release: 'r2', killed: ['app'] } },
    ]);
    const { out, lines } = textOutput();
    renderLastStops(stops, out);
    expect(lines).toContain(
      `  WARN web-1: app needed SIGKILL at the last stop (r2, ${at}): it ignores SIGTERM, so each stop cuts its requests; give it init: true, or make it exit on SIGTERM`,
    );
    expect(lines).toContain('  web-3: cannot see it: connection refused');
    expect(lines.some((l) => l.includes('web-2'))).toBe(false);
  });

  it('says no service needed SIGKILL, and on how many hosts, when none did', async () => {
    const stops = await readLastStops(testConfig(), (host) =>
      host === 'web-3'
        ? Promise.reject(new Error('timed out'))
        : Promise.resolve(host === 'web-1' ? null : { at, release: 'r1', killed: [] }),
    );
    expect(killedAtLastStop(stops)).toEqual([]);
    const { out, lines } = textOutput();
    renderLastStops(stops, out);
    expect(lines).toContain('  no service needed SIGKILL on the 2 host(s) seen');
  });
});
