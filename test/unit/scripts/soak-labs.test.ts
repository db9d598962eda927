import { describe, expect, it } from 'vitest';
import { addReports, type LoadReport } from '../../../scripts/lab/index.js';
import { labelledReport } from '../../../scripts/bench/soak-labs.js';

const report = (hosts: Record<string, number>): LoadReport => ({
  total: 10,
  ok: 10,
  failed: 0,
  statuses: {},
  errors: {},
  releases: { r2: 10 },
  hosts,
  durationMs: 1000,
  retried: 0,
});

describe("the soak's load over its two labs", () => {
  it("keeps the command lab's web-1 and the compose lab's web-1 apart", () => {
    const command = labelledReport({ runtime: 'command' }, report({ 'web-1': 6, 'web-2': 4 }));
    const compose = labelledReport({ runtime: 'compose' }, report({ 'web-1': 7, 'web-2': 3 }));
    const both = addReports(command, compose);
    expect(both.hosts).toEqual({
      'web-1': 6,
      'web-2': 4,
      'compose: web-1': 7,
      'compose: web-2': 3,
    });
    expect(both.total).toBe(20);
    expect(both.releases).toEqual({ r2: 20 });
  });
});
