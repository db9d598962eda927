import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { readReleaseEnv } from '../../../src/rollout/release-env.js';
import { printable } from '../../../src/safe-text.js';
import { testConfig } from '../../support/config.js';

const config = testConfig({
  env: { clear: { MODE: 'production' }, secret: ['DB_PASSWORD', 'API_TOKEN'] },
});

describe("a rollout's environment", () => {
  it('takes clear values as written and secrets from the environment', () => {
    expect(
      readReleaseEnv(config, { DB_PASSWORD: 'pw-from-ci', API_TOKEN: 'tok-from-ci', OTHER: 'x' }),
    ).toEqual({ MODE: 'production', DB_PASSWORD: 'pw-from-ci', API_TOKEN: 'tok-from-ci' });
  });

  it('names every missing secret on its own line, exit 2', () => {
    const error = (() => {
      try {
        readReleaseEnv(config, {});
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message.split('\n')).toEqual([
      'env.secret[0]: DB_PASSWORD is not set in this environment; export it (a CI secret) before the rollout',
      'env.secret[1]: API_TOKEN is not set in this environment; export it (a CI secret) before the rollout',
    ]);
  });

  it('refuses a secret .env cannot carry without printing it, and masks it from then on', () => {
    const value = "it's-a-distinctive-secret";
    const error = (() => {
      try {
        readReleaseEnv(config, { DB_PASSWORD: value, API_TOKEN: 'tok-from-ci' });
      } catch (e) {
        return e;
      }
    })();
    expect((error as ConfigError).message).toContain('DB_PASSWORD');
    expect((error as ConfigError).message).not.toContain(value);
    expect(printable(`echoed: ${value}`)).toBe('echoed: ***');
  });

  it('refuses a secret too short to mask, naming it and never its value, exit 2', () => {
    const error = (() => {
      try {
        readReleaseEnv(config, { DB_PASSWORD: 'host', API_TOKEN: 'tok-from-ci' });
      } catch (e) {
        return e;
      }
    })();
    expect((error as ConfigError).exitCode).toBe(2);
    expect((error as ConfigError).message).toBe(
      'env.secret[0]: DB_PASSWORD is shorter than 8 characters, too short to mask in output (it would hide inside ordinary words and give itself away): use a longer secret, or list DB_PASSWORD under env.clear if it is no secret',
    );
    // nothing masked: `2 host(s)` stays as it is
    expect(printable('release r1: 2 host(s)')).toBe('release r1: 2 host(s)');
  });

  it('takes an empty secret as it is: nothing to mask, nothing to give away', () => {
    expect(readReleaseEnv(config, { DB_PASSWORD: '', API_TOKEN: 'tok-from-ci' })).toMatchObject({
      DB_PASSWORD: '',
    });
  });
});
