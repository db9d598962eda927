import { appendFile, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendAudit } from '../../../src/host/audit.js';
import { readAudit } from '../../../src/host/audit-read.js';
import { scratchDir } from '../../support/scratch.js';

const entry = (step: string, start: string) => ({
  release: 'r1',
  step,
  start,
  duration_ms: 10,
  result: 'ok',
  who: 'ci@runner',
});

describe("reading a host's audit.jsonl", () => {
  let root: string;
  beforeEach(async () => {
    root = await scratchDir('handoff-audit-');
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("writes a URL's password masked: the file never holds it", async () => {
    await appendAudit(root, {
      ...entry('verify', '2026-11-30T10:00:00.000Z'),
      result: 'error',
      error: 'web: http://probe:hunter2@127.0.0.1:8080/ready answered 503',
    });
    const text = await readFile(path.join(root, 'audit.jsonl'), 'utf8');
    expect(text).not.toContain('hunter2');
    expect(JSON.parse(text)).toMatchObject({
      error: 'web: http://probe:***@127.0.0.1:8080/ready answered 503',
    });
  });

  it('reads nothing, and no error, on a host that has no audit yet', async () => {
    expect(await readAudit(root, undefined)).toEqual({ entries: [], truncated: false, skipped: 0 });
  });

  it('keeps only entries that started at or after --since, filtered on the host', async () => {
    await appendAudit(root, entry('drain', '2026-11-30T10:00:00.000Z'));
    await appendAudit(root, entry('stop', '2026-11-30T11:00:00.000Z'));
    await appendAudit(root, entry('start', '2026-11-30T12:00:00.000Z'));
    const r = await readAudit(root, Date.parse('2026-11-30T11:00:00Z'));
    expect(r.entries.map((e) => e.step)).toEqual(['stop', 'start']);
  });

  it('sends the newest entries that fit the bound and says older ones were left out', async () => {
    for (let i = 0; i < 10; i += 1)
      await appendAudit(root, entry(`step-${i}`, `2026-11-30T10:00:0${i}.000Z`));
    const line = JSON.stringify(entry('step-0', '2026-11-30T10:00:00.000Z')).length + 1;
    const r = await readAudit(root, undefined, 3 * line);
    expect(r.entries.map((e) => e.step)).toEqual(['step-7', 'step-8', 'step-9']);
    expect(r.truncated).toBe(true);
  });

  it('skips a torn or foreign line and counts it, keeping the entries around it', async () => {
    await appendAudit(root, entry('drain', '2026-11-30T10:00:00.000Z'));
    await appendFile(path.join(root, 'audit.jsonl'), '{"release":"r1","step":\n[1,2]\n');
    await appendAudit(root, entry('stop', '2026-11-30T10:00:01.000Z'));
    const r = await readAudit(root, undefined);
    expect(r.entries.map((e) => e.step)).toEqual(['drain', 'stop']);
    expect(r.skipped).toBe(2);
  });
});
