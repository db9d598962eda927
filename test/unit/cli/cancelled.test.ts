import { afterEach, describe, expect, it, vi } from 'vitest';
import { JsonStream } from '../../../src/cli/json-stream.js';
import { outcomeOf } from '../../../src/cli/outcome.js';
import { CancelledError } from '../../../src/errors.js';
import { ndjson } from './cli-process.js';

describe('a command cancelled while it waited (issue 34: a queued --wait-lease job cancelled by CI)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('says one line, no stack and no "internal error", exits 3, and its --json result says cancelled', () => {
    const said: string[] = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => {
      said.push(String(text));
      return true;
    });
    const { code, failure } = outcomeOf(
      new CancelledError(
        'cancelled (SIGINT) while waiting for the fleet lease held (on web-1) by deploy rollout r7 by ci@runner pid 7; nothing was changed',
      ),
    );
    expect(code).toBe(3);
    expect(said).toEqual([
      'deploy: cancelled (SIGINT) while waiting for the fleet lease held (on web-1) by deploy rollout r7 by ci@runner pid 7; nothing was changed\n',
    ]);
    const lines: string[] = [];
    new JsonStream((t) => lines.push(t)).finish(code, failure);
    const [result] = ndjson(lines.join(''));
    expect(result).toMatchObject({ ok: false, exit_code: 3, cancelled: true });
    expect(result?.error).toMatch(/^cancelled \(SIGINT\) while waiting for the fleet lease/);
  });
});
