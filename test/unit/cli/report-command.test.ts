import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { rolloutStream } from '../../support/rollout-stream.js';
import { scratchDir } from '../../support/scratch.js';
import { deploy, root } from './cli-process.js';

const tempDir = () => scratchDir('handoff-report-');

describe('deploy report', () => {
  it("writes the page of a rollout's --json output and says what it drew", async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'r.ndjson'), rolloutStream({ hosts: 4, batch: 2 }));
    const out = path.join(dir, 'report.html');
    const r = await deploy('report', path.join(dir, 'r.ndjson'), '-o', out);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toBe(
      `wrote ${out}: release r2, 4 host(s) in 2 wave(s), from the --json stream`,
    );
    expect(await readFile(out, 'utf8')).toMatch(/^<!doctype html>[\s\S]*data-host="web-004"/);
  });

  it('reads stdin and writes the page to stdout without -o', async () => {
    const main = path.join(root, 'src/cli/main.ts');
    const r = await execa('node', ['--import', 'tsx', main, 'report'], {
      cwd: root,
      reject: false,
      input: rolloutStream({ hosts: 1, batch: 1 }),
    });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^<!doctype html>[\s\S]*data-host="web-001"[\s\S]*<\/html>$/);
  });

  it("masks a URL's password a failed step's detail quoted", async () => {
    const dir = await tempDir();
    const stream = rolloutStream({ hosts: 2, batch: 1, failAt: 1 }).replaceAll(
      'app ✗ status-500',
      'app ✗ https://ops:hunter2@registry.example/v2/',
    );
    await writeFile(path.join(dir, 'r.ndjson'), stream);
    const out = path.join(dir, 'report.html');
    const r = await deploy('report', path.join(dir, 'r.ndjson'), '-o', out);
    expect(r.exitCode, r.stderr).toBe(0);
    const html = await readFile(out, 'utf8');
    expect(html).toContain('https://ops:***@registry.example/v2/');
    expect(html).not.toContain('hunter2');
  });

  it('refuses a file that is not a rollout stream: one line, exit 2, no page', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'bad.ndjson'), 'hello\n');
    const out = path.join(dir, 'report.html');
    const r = await deploy('report', path.join(dir, 'bad.ndjson'), '-o', out);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `deploy: ${path.join(dir, 'bad.ndjson')}:1: not a JSON line; give the output of 'deploy rollout --json', 'deploy audit --json' or a host's audit.jsonl`,
    );
    await expect(readFile(out)).rejects.toThrow(/ENOENT/);
  });

  it('names a file it cannot read', async () => {
    const r = await deploy('report', '/nonexistent/r.ndjson');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(
      /^deploy: cannot read \/nonexistent\/r\.ndjson: .*; give a rollout's --json output$/,
    );
  });
});
