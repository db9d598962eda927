import { describe, expect, it } from 'vitest';
import { bakeCost, receiptMsPerHost } from '../../../scripts/bench/evidence-cost.js';

const line = (o: object) => JSON.stringify(o);

describe('the evidence cost the rollout bench reads from --json', () => {
  const stdout = [
    line({ event: 'step', host: 'web-1' }),
    line({ event: 'receipt', host: 'web-1', fields: { read_ms: 12 } }),
    line({ event: 'bake', fields: { read_ms: 5 } }),
    line({ event: 'bake', fields: { read_ms: 7 } }),
    line({ event: 'receipt', host: 'web-2', fields: { read_ms: 8 } }),
    // the rollout's total receipt names no host: not a host's cost
    line({ event: 'receipt', fields: { read_ms: 100 } }),
    'not json',
  ].join('\n');

  it("averages the hosts' receipt reads", () => {
    expect(receiptMsPerHost(stdout)).toBe(10);
    expect(receiptMsPerHost('')).toBeNaN();
  });

  it("counts the bake's looks and their reads", () => {
    expect(bakeCost(stdout)).toEqual({ looks: 2, readMs: 12 });
  });
});
