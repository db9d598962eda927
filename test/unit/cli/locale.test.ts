import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { minimal, tempDir } from '../config/temp-config.js';
import { root } from './cli-process.js';

/** `deploy …` as a process in one locale; hosts where nothing listens (this file's loopback addresses) */
async function deployIn(locale: string, args: readonly string[], config = minimal) {
  const dir = await tempDir();
  const file = path.join(dir, 'deploy.yml');
  await writeFile(file, config.replaceAll('10.0.0.', '127.0.111.'));
  await writeFile(path.join(dir, 'compose.yml'), 'services: {}\n');
  const run = await execa(
    'node',
    ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args, '-c', file],
    {
      cwd: root,
      reject: false,
      env: { LANG: locale, LC_ALL: '', LC_CTYPE: '', SSH_AUTH_SOCK: path.join(dir, 'no-agent') },
    },
  );
  return { code: run.exitCode, all: `${run.stdout}\n${run.stderr}` };
}

const nonAscii = /[^\t\n\u0020-\u007e]/u;
const stopBar = (text: string) => text.split('\n').find((l) => l.startsWith('stop '));

describe('LANG=C: ASCII in every command, the same way (issue 34)', () => {
  it.each([
    ['check', ['check']],
    ['the dry run', ['rollout', '--release', 'r1', '--dry-run']],
  ])('%s draws the timeline bars as # and prints nothing but ASCII', async (_, args) => {
    const r = await deployIn('C', args);
    expect(stopBar(r.all)).toMatch(/\|\s*#+\s*\|/);
    expect(r.all).toMatch(/^ok {3}drain-before-stop .* >= /m);
    expect(r.all.match(nonAscii), r.all).toBeNull();
    // the marks are a column: ok, FAIL and ! padded alike, so the invariants' names line up
    const names = r.all.split('\n').filter((l) => /^(ok|FAIL|!) +[a-z-]+ {2}/.test(l));
    expect(names.length).toBeGreaterThan(3);
    const column = (l: string) => /^(ok|FAIL|!) +/.exec(l)?.[0].length;
    expect(new Set(names.map(column)), names.join('\n')).toEqual(new Set([5]));
  });

  it.each([
    ['check', ['check']],
    ['the dry run', ['rollout', '--release', 'r1', '--dry-run']],
  ])('%s under a UTF-8 locale keeps its symbols', async (_, args) => {
    const r = await deployIn('en_US.UTF-8', args);
    expect(stopBar(r.all)).toMatch(/\|\s*█+\s*\|/);
    expect(r.all).toMatch(/^✓ drain-before-stop .* ≥ /m);
  });

  it('the error line a command ends with is ASCII too', async () => {
    // the schema's message ends 'arn:aws:elasticloadbalancing:…'
    const alb = minimal.replace('kind: static', 'kind: alb\n  target_group_arn: nope');
    const r = await deployIn('C', ['check'], alb);
    expect(r.code).toBe(2);
    expect(r.all).toContain('must be a target group ARN (arn:aws:elasticloadbalancing:...)');
    expect(r.all.match(nonAscii), r.all).toBeNull();
  });
});
