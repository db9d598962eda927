import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BlockedError,
  ConfigError,
  HostUnreachableError,
  OperationError,
} from '../../../src/errors.js';
import { JsonStream, SCHEMA_VERSION } from '../../../src/cli/json-stream.js';
import { outcomeOf } from '../../../src/cli/outcome.js';
import { createOutput } from '../../../src/cli/output.js';
import { writeConfig } from '../config/temp-config.js';
import { deploy, ndjson } from './cli-process.js';

/** A JsonStream writing into an array, and what main does at the end of a run. */
function captured() {
  const lines: string[] = [];
  const stream = new JsonStream((text) => lines.push(text));
  const out = createOutput({ json: true, stream });
  const end = (error?: unknown) => {
    const { code, failure } =
      error === undefined ? { code: 0, failure: undefined } : outcomeOf(error);
    stream.finish(code, failure);
    return ndjson(lines.join(''));
  };
  return { out, end };
}

describe('the result line of a --json run', () => {
  // main says why on stderr too; here only the result line is under test
  beforeEach(() => {
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('comes last, once, with schema_version, ok and exit_code, after every event', () => {
    const { out, end } = captured();
    out.result(true, { hosts: [{ leftDrained: false }] });
    out.emit({ level: 'info', event: 'close', message: 'closed', fields: { elapsedMs: 3 } });
    const lines = end();
    expect(lines.map((l) => l.event)).toEqual(['close', 'result']);
    expect(lines[0]).toMatchObject({ fields: { elapsed_ms: 3 } });
    expect(lines[1]).toEqual({
      event: 'result',
      schema_version: SCHEMA_VERSION,
      ok: true,
      exit_code: 0,
      hosts: [{ left_drained: false }],
    });
  });

  it('keeps the command’s data when an operation fails after it, with ok false and exit 1', () => {
    const { out, end } = captured();
    out.result(false, { hosts: [{ host: 'web-1', ok: false }] });
    const [result] = end(new OperationError('verify failed: web-1/app'));
    expect(result).toMatchObject({
      ok: false,
      exit_code: 1,
      error: 'verify failed: web-1/app',
      hosts: [{ host: 'web-1', ok: false }],
    });
  });

  it('says ok false with exit 3 when preflight refuses, whatever ok the command had written', () => {
    const { out, end } = captured();
    out.result(true, { dryRun: true, plan: [['web-1']] });
    const [result] = end(new BlockedError('preflight: web-2 is drained'));
    expect(result).toMatchObject({
      ok: false,
      exit_code: 3,
      dry_run: true,
      error: 'preflight: web-2 is drained',
    });
  });

  it('is written for an unreachable host no command got to report, naming the host once', () => {
    const { end } = captured();
    const [result] = end(new HostUnreachableError('web-9', 'connect ECONNREFUSED 127.0.41.99:22'));
    expect(result).toEqual({
      event: 'result',
      schema_version: SCHEMA_VERSION,
      ok: false,
      exit_code: 3,
      error: 'web-9: connect ECONNREFUSED 127.0.41.99:22',
    });
  });

  it('lists a bad config’s problems with code, key path, file, line and column', () => {
    const { end } = captured();
    const [result] = end(
      new ConfigError([
        {
          path: 'hosts[0].nmae',
          message: "unknown key (did you mean 'name'?)",
          location: 'd.yml:3:5',
        },
        { path: 'ssh', message: 'required', location: 'd.yml:1:1' },
      ]),
    );
    expect(result?.exit_code).toBe(2);
    expect(result?.problems).toEqual([
      {
        code: 'unknown-key',
        message: "unknown key (did you mean 'name'?)",
        path: 'hosts[0].nmae',
        file: 'd.yml',
        line: 3,
        column: 5,
      },
      { code: 'required', message: 'required', path: 'ssh', file: 'd.yml', line: 1, column: 1 },
    ]);
  });

  it('cannot be overridden by a command’s own event, ok or exit_code fields', () => {
    const { out, end } = captured();
    out.result(true, { event: 'other', ok: true, exitCode: 0 });
    const [result] = end(new OperationError('failed'));
    expect(result).toMatchObject({ event: 'result', ok: false, exit_code: 1 });
  });
});

describe('deploy --json as a process', () => {
  it('ends a bad config with exactly one parseable result line, exit 2, no stack trace', async () => {
    const file = await writeConfig('service: x\nhosts:\n  - nmae: a\n');
    const r = await deploy('check', '--json', '-c', file);
    expect(r.exitCode).toBe(2);
    const lines = ndjson(r.stdout);
    expect(lines.filter((l) => l.event === 'result')).toHaveLength(1);
    expect(lines.at(-1)).toMatchObject({ event: 'result', ok: false, exit_code: 2 });
    expect(lines.at(-1)?.problems).toContainEqual({
      code: 'unknown-key',
      message: "unknown key (did you mean 'name'?)",
      path: 'hosts[0].nmae',
      file,
      line: 3,
      column: 5,
    });
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('ends a wrong flag with a result line too, exit 2', async () => {
    const r = await deploy('status', '--json', '--hots', 'web-1');
    expect(r.exitCode).toBe(2);
    expect(ndjson(r.stdout)).toEqual([
      {
        event: 'result',
        schema_version: SCHEMA_VERSION,
        ok: false,
        exit_code: 2,
        error: "unknown option '--hots' (Did you mean --hosts?)",
      },
    ]);
  });
});
