import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { destinationFile, mergeOver } from '../../../src/config/destination.js';
import { loadConfig } from '../../../src/config/load.js';
import { ConfigError, UsageError } from '../../../src/errors.js';
import { destinationAfterCommand } from '../../../src/cli/main.js';
import { minimal, writeConfig } from './temp-config.js';

/** deploy.yml (the minimal one) and deploy.staging.yml beside it. */
async function withStaging(staging: string): Promise<string> {
  const file = await writeConfig(minimal);
  await writeFile(path.join(path.dirname(file), 'deploy.staging.yml'), staging);
  return file;
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

describe('a destination file merged over deploy.yml', () => {
  it('merges maps key by key and replaces lists whole, as Kamal does', () => {
    const base = { ssh: { user: 'deploy', port: 22 }, hosts: [{ name: 'a' }, { name: 'b' }] };
    const over = { ssh: { port: 2222 }, hosts: [{ name: 'c' }] };
    expect(mergeOver(base, over)).toEqual({
      ssh: { user: 'deploy', port: 2222 },
      hosts: [{ name: 'c' }],
    });
  });

  it('removes a key the destination sets to null', () => {
    expect(
      mergeOver({ ssh: { user: 'u', proxy_jump: 'b' } }, { ssh: { proxy_jump: null } }),
    ).toEqual({ ssh: { user: 'u' } });
  });

  it('sits beside the config, the destination before the extension', () => {
    expect(destinationFile('ops/deploy.yml', 'staging')).toBe('ops/deploy.staging.yml');
    expect(destinationFile('deploy.yaml', 'eu-1')).toBe('deploy.eu-1.yaml');
  });

  it("loads the destination's hosts and keeps deploy.yml's other keys", async () => {
    const file = await withStaging('hosts:\n  - { name: stg-1, address: 10.1.0.1 }\n');
    const config = await loadConfig(file, { env: {}, destination: 'staging' });
    expect(config.hosts.map((h) => h.name)).toEqual(['stg-1']);
    expect(config.ssh.user).toBe('deploy');
    expect(config.services.map((s) => s.name)).toEqual(['web']);
  });

  it('names the deployment service-destination, so its host paths never meet production’s', async () => {
    const file = await withStaging('ssh:\n  port: 2222\n');
    const staging = await loadConfig(file, { env: {}, destination: 'staging' });
    const production = await loadConfig(file, { env: {} });
    expect(staging.service).toBe('api-staging');
    expect(staging.ssh.port).toBe(2222);
    expect(staging.host).toMatchObject({
      root: '/srv/handoff/api-staging',
      lock: '/run/handoff/api-staging.lock',
      state: '/run/handoff/api-staging',
    });
    expect(production.host.lock).toBe('/run/handoff/api.lock');
  });

  it('points a mistake at the line of the file that made it', async () => {
    const file = await withStaging('# staging\nssh:\n  port: many\n');
    const error = await failure(loadConfig(file, { env: {}, destination: 'staging' }));
    expect(error).toBeInstanceOf(ConfigError);
    const dir = path.dirname(file);
    expect(error.message.replaceAll(dir, 'DIR')).toContain(
      'ssh.port: expected a number, got a string "many" (DIR/deploy.staging.yml:3:9)',
    );
  });

  it("points at deploy.yml for a mistake only deploy.yml's keys make", async () => {
    const file = await writeConfig(minimal.replace('user: deploy', 'user: "bad user"'));
    await writeFile(path.join(path.dirname(file), 'deploy.staging.yml'), 'ssh:\n  port: 2222\n');
    const error = await failure(loadConfig(file, { env: {}, destination: 'staging' }));
    expect(error.message).toContain(`(${file}:3:9)`);
  });

  it('is one line naming the missing file and how to make it', async () => {
    const file = await writeConfig(minimal);
    const error = await failure(loadConfig(file, { env: {}, destination: 'prod' }));
    expect(error).toBeInstanceOf(ConfigError);
    const missing = path.join(path.dirname(file), 'deploy.prod.yml');
    expect(error.message).toBe(
      `cannot read ${missing}: no such file; -d prod reads it beside ${file}; create it with the keys prod changes`,
    );
  });

  it('refuses a destination that is not a name, before reading anything', async () => {
    const file = await writeConfig(minimal);
    const error = await failure(loadConfig(file, { env: {}, destination: '../prod' }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error.message).toMatch(/^-d "\.\.\/prod": a destination is 1–30 characters/);
  });

  it('takes an empty destination file as deploy.yml unchanged but for the name', async () => {
    const file = await withStaging('# nothing differs yet\n');
    const config = await loadConfig(file, { env: {}, destination: 'staging' });
    expect([config.service, config.hosts.length]).toEqual(['api-staging', 2]);
  });

  it('refuses a destination file that is not a mapping', async () => {
    const file = await withStaging('- web-1\n');
    const error = await failure(loadConfig(file, { env: {}, destination: 'staging' }));
    expect(error.message).toContain('the destination file holds a list, not a mapping');
  });
});

describe('deploy -d NAME before the command', () => {
  it('is moved after the command, ahead of a -- that ends the flags', () => {
    expect(destinationAfterCommand(['-d', 'stg', 'rollout', '--release', 'r1'])).toEqual([
      'rollout',
      '--release',
      'r1',
      '-d',
      'stg',
    ]);
    expect(destinationAfterCommand(['--destination=stg', 'lock', 'exec', '--', 'ls'])).toEqual([
      'lock',
      'exec',
      '--destination=stg',
      '--',
      'ls',
    ]);
    expect(destinationAfterCommand(['check', '-d', 'stg'])).toEqual(['check', '-d', 'stg']);
  });
});
