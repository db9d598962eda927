import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { sealHostConfig, unsealHostConfig } from '../../../src/config/sealed.js';
import { toDocument, toHostJson } from '../../../src/config/serialize.js';
import type { Config } from '../../../src/config/types.js';
import { ConfigError } from '../../../src/errors.js';
import { VERSION } from '../../../src/version.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

const example = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../../infra/deploy.example.yml',
);

type Json = Record<string, Record<string, unknown>>;

async function exampleConfig(): Promise<Config> {
  return loadConfig(example, { env: {} });
}

/** a host config whose seal holds but whose sealed Config says overlap 7 s (the document says otherwise) */
async function sealedWithOverlap7s(): Promise<string> {
  const config = await exampleConfig();
  const other = { ...config, drain: { ...config.drain, overlap: 7_000 } };
  return writeConfig(sealHostConfig(toDocument(config), other), 'api.json');
}

async function editJson(file: string, edit: (data: Json) => void): Promise<void> {
  const data = JSON.parse(await readFile(file, 'utf8')) as Json;
  edit(data);
  await writeFile(file, JSON.stringify(data, null, 2));
}

describe('the sealed host config', () => {
  it('is read back from the seal, without validating the document again', async () => {
    const file = await sealedWithOverlap7s();
    expect((await exampleConfig()).drain.overlap).not.toBe(7_000);
    const config = await loadConfig(file, { env: {}, trustSeal: true });
    expect(config.drain.overlap).toBe(7_000);
    expect(config.source).toBe(file);
    expect(Object.isFrozen(config.drain)).toBe(true);
  });

  it('round-trips exactly the Config that setup sealed', async () => {
    const config = await exampleConfig();
    const back = unsealHostConfig(toHostJson(config), '/etc/handoff/api.json');
    expect(back).toEqual({ ...config, source: '/etc/handoff/api.json' });
  });

  it('still applies the host’s HANDOFF_* overrides', async () => {
    const file = await sealedWithOverlap7s();
    const config = await loadConfig(file, { env: { HANDOFF_MAX_RESTARTS: '9' }, trustSeal: true });
    expect(config.drain.overlap).toBe(7_000);
    expect(config.watchdog.maxRestarts).toBe(9);
  });

  it('validates a document edited by hand in full, and uses the edit', async () => {
    const file = await sealedWithOverlap7s();
    await editJson(file, (data) => {
      data.drain = { ...data.drain, overlap: '9s' };
    });
    expect((await loadConfig(file, { env: {}, trustSeal: true })).drain.overlap).toBe(9_000);
  });

  it('reports a bad hand edit with its place in the file', async () => {
    const file = await sealedWithOverlap7s();
    await editJson(file, (data) => {
      data.drain = { ...data.drain, overlap: 'soon' };
    });
    const error = await loadConfig(file, { env: {}, trustSeal: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(/drain\.overlap: .*api\.json:\d+:\d+/);
  });

  it('ignores a sealed Config edited by hand: the document decides', async () => {
    const file = await sealedWithOverlap7s();
    await editJson(file, (data) => {
      const sealed = data.sealed as { config: { drain: Record<string, unknown> } };
      sealed.config.drain.overlap = 1;
    });
    const document = (await exampleConfig()).drain.overlap;
    expect((await loadConfig(file, { env: {}, trustSeal: true })).drain.overlap).toBe(document);
  });

  it('does not trust a seal written by another version of handoff', async () => {
    const file = await sealedWithOverlap7s();
    await editJson(file, (data) => {
      (data.sealed as Record<string, unknown>).version = `${VERSION}-other`;
    });
    const document = (await exampleConfig()).drain.overlap;
    expect((await loadConfig(file, { env: {}, trustSeal: true })).drain.overlap).toBe(document);
  });

  it('validates in full a host config sealed in the earlier format, with a sha256', async () => {
    const file = await sealedWithOverlap7s();
    await editJson(file, (data) => {
      const { checksum, ...seal } = data.sealed as Record<string, unknown>;
      data.sealed = { ...seal, format: 'handoff-host-config/1', sha256: checksum };
    });
    const document = (await exampleConfig()).drain.overlap;
    expect((await loadConfig(file, { env: {}, trustSeal: true })).drain.overlap).toBe(document);
  });

  it('leaves a `sealed` key that setup did not write to be an unknown key', async () => {
    expect((await problemsOf(`${minimal}\nsealed: { sha256: abc }\n`)).join('\n')).toMatch(
      /sealed/,
    );
  });

  it('is never found in YAML, plain JSON or garbage', async () => {
    const config = await exampleConfig();
    expect(unsealHostConfig(await readFile(example, 'utf8'), example)).toBeUndefined();
    expect(unsealHostConfig(JSON.stringify(toDocument(config)), 'a.json')).toBeUndefined();
    expect(unsealHostConfig('{"sealed": ', 'a.json')).toBeUndefined();
    expect(unsealHostConfig('[1, 2]', 'a.json')).toBeUndefined();
  });
});

/** a host config with a recomputed seal, whose document and sealed Config both say `edit` */
async function forged(edit: (config: Config) => Config): Promise<string> {
  const config = edit(await exampleConfig());
  return writeConfig(sealHostConfig(toDocument(config), config), 'api.json');
}

const cronLine = 'api\n* * * * * root touch /tmp/pwned';

describe('a forged seal', () => {
  it('is not honoured by deploy check -c FILE: the document is validated', async () => {
    const file = await forged((c) => ({ ...c, service: cronLine }));
    const error = await loadConfig(file, { env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message).toMatch(
      /^service: must be 1–63 characters .*api\.json:2:14\)$/,
    );
  });

  it('where seals are honoured, still has every path, name and timer checked again', async () => {
    const bad: ((c: Config) => Config)[] = [
      (c) => ({ ...c, service: cronLine }),
      (c) => ({ ...c, ssh: { ...c.ssh, user: 'root touch /tmp/pwned; #' } }),
      (c) => ({ ...c, host: { ...c.host, lock: '/run/handoff/api lock' } }),
      (c) => ({ ...c, drain: { ...c.drain, stopTimeout: 700 * 3_600_000 } }),
      (c) => ({
        ...c,
        services: c.services.map((s) => ({
          ...s,
          check: {
            kind: 'heartbeat',
            dir: 'marks\n* * * * * root sh',
            maxAge: 30_000,
            expected: 1,
          },
        })),
      }),
    ];
    for (const edit of bad) {
      const file = await forged(edit);
      const error = await loadConfig(file, { env: {}, trustSeal: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigError);
    }
  });

  it('over a valid document but a bad sealed Config is ignored: the document decides', async () => {
    const config = await exampleConfig();
    const bad = { ...config, host: { ...config.host, root: '/srv/x\n* * * * * root sh' } };
    const file = await writeConfig(sealHostConfig(toDocument(config), bad), 'api.json');
    const loaded = await loadConfig(file, { env: {}, trustSeal: true });
    expect(loaded.host.root).toBe(config.host.root);
  });
});
