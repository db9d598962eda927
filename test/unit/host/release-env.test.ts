import { execFile } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { envValueProblem, parseEnv, renderEnv } from '../../../src/host/release-env.js';
import { scratchDir } from '../../support/scratch.js';

const run = promisify(execFile);

describe("the release's .env", () => {
  it("writes handoff's own variables bare, then the operator's single-quoted, in order", () => {
    expect(renderEnv({ RELEASE: 'r7' }, { DB_HOST: 'db.internal', TOKEN: 'a b' })).toBe(
      "RELEASE=r7\nDB_HOST='db.internal'\nTOKEN='a b'\n",
    );
  });

  it("quotes one of handoff's own values that holds a space or a $ (a marks dir from deploy.yml)", () => {
    const text = renderEnv({ RELEASE: 'r7', HANDOFF_MARKS_DIR: '/run/my marks/$x' }, {});
    expect(text).toBe("RELEASE=r7\nHANDOFF_MARKS_DIR='/run/my marks/$x'\n");
    expect(parseEnv(text).HANDOFF_MARKS_DIR).toBe('/run/my marks/$x');
    expect(() => renderEnv({ HANDOFF_MARKS_DIR: "/run/it's" }, {})).toThrow(
      'env HANDOFF_MARKS_DIR: the value contains a single quote',
    );
  });

  it('keeps $, backslashes, double quotes and # literal, as sh reads them back', async () => {
    const tricky = 'p$HOME\\n"x" #y `z` ;&|';
    const text = renderEnv({ RELEASE: 'r1' }, { PASS: tricky, EMPTY: '' });
    const dir = await scratchDir('handoff-env-');
    try {
      await writeFile(path.join(dir, '.env'), text);
      const { stdout } = await run(
        'sh',
        ['-c', 'set -a; . ./.env; printf "%s|%s|%s" "$RELEASE" "$PASS" "$EMPTY"'],
        { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
      );
      expect(stdout).toBe(`r1|${tricky}|`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('reads back exactly what it wrote, and the bare lines of older releases', () => {
    const vars = { PASS: 'p$x\\"y', EMPTY: '' };
    expect(parseEnv(renderEnv({ RELEASE: 'r1', HANDOFF_STOP_TIMEOUT: '150' }, vars))).toEqual({
      RELEASE: 'r1',
      HANDOFF_STOP_TIMEOUT: '150',
      ...vars,
    });
  });

  it.each([
    ['a line break', 'one\ntwo', 'line break'],
    ['a carriage return', 'one\rtwo', 'line break'],
    ['a single quote', "it's", 'single quote'],
    ['a NUL byte', 'a\0b', 'NUL'],
  ])('refuses a value with %s, naming the variable and not the value', (_what, value, why) => {
    expect(envValueProblem(value)).toContain(why);
    const error = (() => {
      try {
        renderEnv({ RELEASE: 'r1' }, { SECRET_X: value });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toContain('SECRET_X');
    expect((error as UsageError).message).not.toContain(value);
  });

  it('refuses an operator variable that would replace one of its own', () => {
    expect(() => renderEnv({ RELEASE: 'r1' }, { RELEASE: 'r2' })).toThrow(/set by handoff/);
  });
});
