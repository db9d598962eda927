import { describe, expect, it } from 'vitest';
import { preflightLines } from '../../../src/rollout/preflight-lines.js';

describe('preflight lines', () => {
  it('says one line per host, sorted by host, whatever order the answers came in', () => {
    expect(
      preflightLines([
        { host: 'web-3', reason: 'connection refused' },
        { host: 'web-1', reason: 'no SSH handshake within 10s' },
      ]),
    ).toEqual([
      'preflight: web-1: no SSH handshake within 10s',
      'preflight: web-3: connection refused',
    ]);
  });
});
