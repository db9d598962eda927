import { describe, expect, it } from 'vitest';
import { hostReceiptLine, totalReceiptLine } from '../../../src/evidence/receipt.js';

describe("the receipt's lines", () => {
  it('group a count by threes with spaces', () => {
    expect(hostReceiptLine('haproxy be_api', 'web-1', { requests: 9329, failed: 0 })).toBe(
      'haproxy be_api saw 0 failed of 9 329 requests to web-1 during its deploy',
    );
    expect(totalReceiptLine('haproxy be_api', { requests: 1_234_567, failed: 212 })).toBe(
      'haproxy be_api saw 212 failed of 1 234 567 requests in all during the rollout',
    );
    expect(totalReceiptLine('haproxy be_api', { requests: 100_000, failed: 1000 })).toBe(
      'haproxy be_api saw 1 000 failed of 100 000 requests in all during the rollout',
    );
  });

  it('say "at least" for counts since a reset', () => {
    expect(
      hostReceiptLine('haproxy be_api', 'web-2', {
        requests: 12_000,
        failed: 3,
        reset: 'haproxy reloaded',
      }),
    ).toBe(
      'haproxy be_api saw at least 3 failed of at least 12 000 requests to web-2 during its deploy; haproxy reloaded',
    );
  });
});
