import { describe, expect, it } from 'vitest';
import {
  mixedReleases,
  partialReleases,
  renderReleases,
  type HostReleases,
} from '../../../src/cli/fleet/releases-report.js';
import type { ReleaseEntry } from '../../../src/host/release-inventory.js';

const entry = (id: string, over: Partial<ReleaseEntry> = {}): ReleaseEntry => ({
  id,
  createdMs: 0,
  ageMs: 3 * 60_000,
  bytes: 2_500_000,
  artifactSha256: null,
  composeSha256: null,
  ...over,
});

const rows: HostReleases[] = [
  {
    host: 'web-1',
    inventory: {
      current: 'r3',
      previous: 'r2',
      releases: [entry('r3', { composeSha256: 'ab'.repeat(32) }), entry('r2'), entry('r1')],
    },
  },
  {
    host: 'web-2',
    inventory: { current: 'r3', previous: 'r2', releases: [entry('r3'), entry('r2')] },
  },
  { host: 'web-3', error: 'connect ECONNREFUSED' },
];

describe('deploy releases', () => {
  it('flags a release only some reachable hosts have, naming where it is missing', () => {
    expect(partialReleases(rows)).toEqual([{ release: 'r1', missingOn: ['web-2'] }]);
  });

  it('shows current and previous, the compose hash, the partial flag and the unreachable', () => {
    const lines = renderReleases(rows).split('\n');
    expect(lines[0]).toBe('web-1: 3 release(s)');
    expect(lines[1]).toMatch(/^ {2}r3 +current .*compose\.yml abababababab$/);
    expect(lines[2]).toMatch(/^ {2}r2 +previous /);
    expect(lines[3]).toMatch(/^ {2}r1 .*\(not on web-2\)$/);
    expect(lines[1]).not.toContain('not on');
    expect(lines.at(-1)).toBe('web-3: unreachable: connect ECONNREFUSED');
  });
});

describe('deploy releases and different builds under one id', () => {
  const built = (host: string, sha: string): HostReleases => ({
    host,
    inventory: {
      current: 'r4',
      previous: null,
      releases: [entry('r4', { artifactSha256: sha })],
    },
  });

  it('flags a release id whose hosts hold different artifacts', () => {
    const rows = [built('web-1', 'a'.repeat(64)), built('web-2', 'b'.repeat(64))];
    expect(mixedReleases(rows)).toEqual([
      {
        release: 'r4',
        builds: [
          { sha256: 'a'.repeat(64), hosts: ['web-1'] },
          { sha256: 'b'.repeat(64), hosts: ['web-2'] },
        ],
      },
    ]);
    expect(renderReleases(rows)).toContain('r4');
    expect(renderReleases(rows)).toContain('(a different build on other hosts)');
  });

  it('says nothing when every host has the same build', () => {
    const rows = [built('web-1', 'a'.repeat(64)), built('web-2', 'a'.repeat(64))];
    expect(mixedReleases(rows)).toEqual([]);
    expect(renderReleases(rows)).not.toContain('different build');
  });
});
