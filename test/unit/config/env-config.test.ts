import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { loadConfigFromJson } from '../../../src/config/parse.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const withEnv = (env: string): string => `${minimal}env:\n${env}`;

describe('env: in deploy.yml', () => {
  it('reads clear values and secret names', async () => {
    const file = await writeConfig(
      withEnv('  clear: { MODE: production, PORT: "8080" }\n  secret: [DB_PASSWORD]\n'),
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.env).toEqual({
      clear: { MODE: 'production', PORT: '8080' },
      secret: ['DB_PASSWORD'],
    });
  });

  it('keeps secret names, never values, in the host config, and reads them back', async () => {
    const file = await writeConfig(withEnv('  secret: [DB_PASSWORD]\n'));
    const config = await loadConfig(file, { env: {} });
    const json = toHostJson(config);
    expect(JSON.parse(json)).toMatchObject({ env: { clear: {}, secret: ['DB_PASSWORD'] } });
    for (const trustSeal of [true, false])
      expect(loadConfigFromJson(json, 'api.json', { trustSeal }).env.secret).toEqual([
        'DB_PASSWORD',
      ]);
  });

  it('refuses names handoff writes itself, a name both clear and secret, and a bad name', async () => {
    const lines = await problemsOf(
      withEnv('  clear: { RELEASE: x, SHARED: y }\n  secret: [HANDOFF_X, SHARED, 1BAD]\n'),
    );
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^env\.clear\.RELEASE: RELEASE is set by handoff itself/),
        expect.stringMatching(/^env\.secret\[0\]: HANDOFF_X is set by handoff itself/),
        expect.stringMatching(/^env\.secret\[1\]: SHARED is also in env\.clear/),
        expect.stringMatching(/^env\.secret\[2\]: must be a variable name/),
      ]),
    );
  });

  it('refuses a clear value with a single quote or a line break', async () => {
    const lines = await problemsOf(withEnv(`  clear: { GREETING: "it's", TWO: "a\\nb" }\n`));
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^env\.clear\.GREETING: the value contains a single quote/),
        expect.stringMatching(/^env\.clear\.TWO: the value contains a line break/),
      ]),
    );
  });
});

describe('ssh.sudo', () => {
  it('is off unless asked for', async () => {
    expect((await loadConfig(await writeConfig(minimal), { env: {} })).ssh.sudo).toBe(false);
  });

  it('with ssh.user root is refused: root needs no sudo', async () => {
    const text = minimal.replace('  user: deploy\n', '  user: root\n  sudo: true\n');
    expect(await problemsOf(text)).toEqual([
      expect.stringMatching(/^ssh\.sudo: ssh\.user is root, which needs no sudo; remove ssh\.sudo/),
    ]);
  });
});
