import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Output } from '../../../src/cli/output.js';
import { rolloutOutput } from '../../../src/cli/rollout/rollout-output.js';
import type { LogEvent } from '../../../src/log.js';
import { FakeTerm, ManualTicker, start } from './progress/fake-term.js';
import { scratchDir } from '../../support/scratch.js';

function base(json: boolean): Output & { events: LogEvent[] } {
  const events: LogEvent[] = [];
  return {
    json,
    events,
    emit: (e) => events.push(e),
    text: () => undefined,
    result: () => undefined,
    raw: () => undefined,
  };
}

const options = (env: Record<string, string>, err: FakeTerm, out: FakeTerm) => ({
  verbose: false,
  configPath: '/nonexistent/deploy.yml',
  env,
  err,
  out,
  now: () => 0,
  ticker: new ManualTicker(),
});

describe("deploy rollout's output, chosen from the flags and the environment", () => {
  it('leaves --json to the NDJSON output, whatever GITHUB_ACTIONS says', () => {
    const err = new FakeTerm(false);
    const json = base(true);
    const out = rolloutOutput(json, options({ GITHUB_ACTIONS: 'true' }, err, new FakeTerm()));
    out.emit(start('web-1', 'await-out', 1000));
    out.close();
    expect(json.events).toEqual([start('web-1', 'await-out', 1000)]);
    expect(err.all).toBe('');
  });

  it('writes workflow commands and the step summary with GITHUB_ACTIONS=true', async () => {
    const dir = await scratchDir('summary-');
    const summary = path.join(dir, 'summary.md');
    const err = new FakeTerm(true);
    const out = rolloutOutput(
      base(false),
      options({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }, err, new FakeTerm()),
    );
    out.emit({
      level: 'debug',
      event: 'wave',
      message: 'wave 1 of 1: web-1',
      fields: { wave: 1, waves: 1, hosts: [{ host: 'web-1', releaseBefore: 'r1' }] },
    });
    out.finish({ ok: true, release: 'r2', hosts: [], notReached: [], elapsed_ms: 5 });
    out.close();
    expect(err.all).toBe('::group::web-1 (wave 1 of 1)\nwave 1 of 1: web-1\n::endgroup::\n');
    expect(await readFile(summary, 'utf8')).toContain('### deploy rollout r2: ✓ deployed');
  });

  it('with --json, still appends the step summary when GITHUB_STEP_SUMMARY is set', async () => {
    const dir = await scratchDir('summary-');
    const summary = path.join(dir, 'summary.md');
    const err = new FakeTerm(false);
    const json = base(true);
    const out = rolloutOutput(json, options({ GITHUB_STEP_SUMMARY: summary }, err, new FakeTerm()));
    const wave: LogEvent = {
      level: 'debug',
      event: 'wave',
      message: 'wave 1 of 1: web-1',
      fields: { wave: 1, waves: 1, hosts: [{ host: 'web-1', releaseBefore: 'r1' }] },
    };
    out.emit(wave);
    out.finish({
      ok: true,
      release: 'r2',
      hosts: [{ host: 'web-1', result: 'deployed', steps: [], leftDrained: false }],
      notReached: [],
      elapsed_ms: 5,
    });
    out.close();
    expect(json.events).toEqual([wave]);
    expect(err.all).toBe('');
    const markdown = await readFile(summary, 'utf8');
    expect(markdown).toContain('### deploy rollout r2: ✓ deployed');
    // the release before, read from the wave event
    expect(markdown).toMatch(/\| web-1 \|.*\| r1 \| r2 \|/);
  });

  it('says in one line when the step summary cannot be written, and goes on', () => {
    const err = new FakeTerm(false);
    const out = rolloutOutput(
      base(false),
      options(
        { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/nonexistent/dir/summary.md' },
        err,
        new FakeTerm(),
      ),
    );
    out.finish({ ok: true, release: 'r2', hosts: [], notReached: [], elapsed_ms: 5 });
    expect(err.all).toMatch(
      /^::warning::could not append the step summary to \/nonexistent\/dir\/summary\.md: ENOENT[^\n]*\n$/,
    );
  });
});
