import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { ConfigError } from '../../../src/errors.js';
import { printable, secretMask } from '../../../src/safe-text.js';
import { minimal, writeConfig } from './temp-config.js';

/**
 * The mask learns `env.secret`'s values when the config loads, not when a
 * rollout reads them: a pre-deploy hook prints first, and `deploy rollback`
 * never reads them.
 */
const NAME = 'TEST_MASKED_TOKEN';

afterEach(() => {
  delete process.env[NAME];
});

describe('secrets masked from the moment deploy.yml loads', () => {
  it("masks an env.secret value of this process's environment once the config is loaded", async () => {
    const value = `s3cr3t-${process.pid}-load`;
    process.env[NAME] = value;
    expect(printable(`token is ${value}`)).toBe(`token is ${value}`);
    await loadConfig(await writeConfig(`${minimal}env:\n  secret: [${NAME}]\n`), { env: {} });
    expect(printable(`token is ${value}`)).toBe('token is ***');
    expect(secretMask.maskDeep({ line: `a ${value} b` })).toEqual({ line: 'a *** b' });
  });

  it('masks nothing for a name the environment does not set', async () => {
    await loadConfig(await writeConfig(`${minimal}env:\n  secret: [${NAME}]\n`), { env: {} });
    expect(printable('token is unset')).toBe('token is unset');
  });

  it('refuses, in every command, a value too short to mask: one line naming it, exit 2', async () => {
    process.env[NAME] = 'host';
    const file = await writeConfig(`${minimal}env:\n  secret: [${NAME}]\n`);
    const error = await loadConfig(file, { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message).toMatch(
      new RegExp(`^env\\.secret\\[0\\]: ${NAME} is shorter than 8 characters, too short to mask`),
    );
    expect((error as ConfigError).message).not.toContain(': host');
    // never joined the mask: `2 host(s)` is not mangled into `2 ***(s)`
    expect(printable('release r1: 2 host(s)')).toBe('release r1: 2 host(s)');
  });
});
