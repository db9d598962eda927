import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/clock.js';
import type { Config } from '../../../src/config/types.js';
import { serveAgentOp, type AgentArgs } from '../../../src/host/agent/server.js';
import { acquireHostLock } from '../../../src/host/lock.js';
import { publishRelease, switchRelease } from '../../../src/host/releases.js';
import type { AgentLine } from '../../../src/protocol/lines.js';
import { secretMask } from '../../../src/safe-text.js';
import { testConfig } from '../../support/config.js';
import { memoryIO } from '../../support/memory-io.js';
import { scratchDir } from '../../support/scratch.js';

let config: Config;
beforeEach(async () => {
  const dir = await scratchDir('handoff-exec-');
  config = testConfig({
    host: {
      root: path.join(dir, 'root'),
      lock: path.join(dir, 'lock/api.lock'),
      state: path.join(dir, 'state'),
      agent: path.join(dir, 'agent'),
    },
    env: { clear: {}, secret: ['TOKEN'] },
  });
  await mkdir(path.join(dir, 'lock'));
  await publishRelease(config.host.root, 'r1', { '.env': "RELEASE=r1\nTOKEN='tok-3141'\n" });
  await switchRelease(config.host.root, 'r1');
});

/** one `deploy host <op>` as its own process would run it, stdin closed when `close` says */
async function serve(op: 'exec' | 'logs', args: AgentArgs, close: 'at-once' | 'never' = 'never') {
  const m = memoryIO();
  if (close === 'at-once') m.close();
  const code = await serveAgentOp(op, args, {
    config,
    clock: systemClock,
    io: m.io,
    self: __filename,
    readStdin: () => Promise.resolve(''),
  });
  const output = m.lines.flatMap((l) =>
    l.type === 'event' && l.event === 'output' ? [l.message] : [],
  );
  const result = m.lines.find(
    (l): l is Extract<AgentLine, { type: 'result' }> => l.type === 'result',
  );
  return { code, output, result };
}

const auditLines = async () =>
  (await readFile(path.join(config.host.root, 'audit.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('the exec operation', () => {
  it('runs the argv in the live release with its environment, the secret masked in its output', async () => {
    const argv = JSON.stringify(['sh', '-c', 'echo "$RELEASE $(basename "$(pwd)") $TOKEN"']);
    const r = await serve('exec', { argv, who: 'alice@laptop' });
    expect(r.code).toBe(0);
    expect(r.result).toEqual({ type: 'result', ok: true, data: { release: 'r1', code: 0 } });
    expect(r.output).toEqual(['r1 r1 ***']);
    expect(secretMask.mask('tok-3141')).toBe('***');
  });

  it('passes each word as it is: no shell reads a quote, a semicolon or $( )', async () => {
    const word = `it's; $(echo no) "x"`;
    const r = await serve('exec', { argv: JSON.stringify(['printf', '%s', word]), who: 'a@b' });
    expect(r.output).toEqual([word]);
  });

  it("answers the command's own exit code and audits before and after, with who and the words", async () => {
    const r = await serve('exec', {
      argv: JSON.stringify(['sh', '-c', 'exit 3']),
      who: 'alice@laptop',
    });
    expect(r.result).toMatchObject({ ok: true, data: { code: 3 } });
    const [before, after] = await auditLines();
    expect(before).toMatchObject({
      step: 'exec',
      result: 'started',
      who: 'alice@laptop',
      release: 'r1',
    });
    expect(after).toMatchObject({
      step: 'exec',
      result: 'failed',
      detail: '["sh","-c","exit 3"]: exit 3',
    });
  });

  it('is refused while another holds the host lock, and runs with --force and its reason in the audit', async () => {
    const held = await acquireHostLock(config.host.lock, { what: 'deploy rollout r2' });
    try {
      const argv = JSON.stringify(['true']);
      const refused = await serve('exec', { argv, who: 'a@b' });
      expect(refused.code).toBe(3);
      expect(refused.result).toMatchObject({
        ok: false,
        error: {
          message: expect.stringMatching(
            /^the host lock is held by deploy rollout r2 \(pid \d+\).*pass --force REASON/,
          ) as string,
        },
      });
      const forced = await serve('exec', { argv, who: 'a@b', force: 'hotfix INC-7' });
      expect(forced.result).toMatchObject({ ok: true, data: { code: 0 } });
      expect((await auditLines()).at(-1)?.detail).toBe(
        '["true"] (past the host lock: hotfix INC-7): exit 0',
      );
    } finally {
      await held.release();
    }
  });

  it('refuses an argv that is not a JSON array of words, exit 2', async () => {
    const r = await serve('exec', { argv: 'rm -rf /', who: 'a@b' });
    expect(r.code).toBe(2);
    expect(r.result).toMatchObject({
      ok: false,
      error: { message: expect.stringContaining('JSON array') as string },
    });
  });

  it('stops the command when the orchestrator closes stdin', async () => {
    const started = Date.now();
    const r = await serve('exec', { argv: JSON.stringify(['sleep', '30']), who: 'a@b' }, 'at-once');
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.result).toMatchObject({ ok: true, data: { code: 143 } });
  });
});

describe('the logs operation', () => {
  it("prints the command runtime's start output files, the last lines asked for", async () => {
    const logs = path.join(config.host.root, 'logs');
    await mkdir(logs, { recursive: true });
    await writeFile(path.join(logs, 'app.start.log'), 'one\ntwo\nthree tok-3141\n');
    const r = await serve('logs', { tail: 2 });
    expect(r.result).toEqual({ type: 'result', ok: true, data: { release: 'r1', code: 0 } });
    expect(r.output).toEqual(['two', 'three ***']);
  });

  it('follows until stdin closes, and that is no failure', async () => {
    const logs = path.join(config.host.root, 'logs');
    await mkdir(logs, { recursive: true });
    await writeFile(path.join(logs, 'app.start.log'), 'one\n');
    const r = await serve('logs', { follow: true, tail: 1 }, 'at-once');
    expect(r.result).toEqual({ type: 'result', ok: true, data: { release: 'r1', code: 0 } });
  });

  it('refuses --since for a service without a logs command, saying what to give', async () => {
    const r = await serve('logs', { since: '10m' });
    expect(r.code).toBe(2);
    expect(r.result).toMatchObject({
      ok: false,
      error: {
        message:
          "--since needs a logs command in deploy.yml (services[].logs); without one: app, whose logs are the start command's output; give one, or use --tail",
      },
    });
  });

  it("runs a service's own logs command in the release with what was asked in its environment, masked", async () => {
    const [app] = config.services;
    if (!app) throw new Error('no service');
    const script =
      'printf "%s\\n" "$HANDOFF_TAIL $HANDOFF_FOLLOW $HANDOFF_SINCE" "$RELEASE $(basename "$(pwd)") $TOKEN"';
    config = { ...config, services: [{ ...app, logs: script }] };
    const r = await serve('logs', { tail: 7, since: '10m' });
    expect(r.result).toEqual({ type: 'result', ok: true, data: { release: 'r1', code: 0 } });
    expect(r.output).toEqual(['7 0 10m', 'r1 r1 ***']);
  });
});
