import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { tempDir } from './temp-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** the real CLI, as a process: the commands print, so they are tested by what they print */
function deploy(...args: string[]) {
  return execa('node', ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args], {
    cwd: root,
    reject: false,
  });
}

describe('deploy schema', () => {
  it('prints a JSON Schema with every top-level key of deploy.yml', async () => {
    const { exitCode, stdout } = await deploy('schema');
    expect(exitCode).toBe(0);
    const schema = JSON.parse(stdout) as {
      $schema: string;
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(Object.keys(schema.properties)).toEqual([
      'service',
      'ssh',
      'hosts',
      'balancer',
      'balancers',
      'drain',
      'rollout',
      'host',
      'runtime',
      'env',
      'services',
      'watchdog',
      'hooks',
      'lease',
    ]);
    expect(schema.required).toEqual(['service', 'ssh', 'hosts', 'runtime', 'services']);
    // one of the two spellings, never both
    expect(schema).toMatchObject({
      oneOf: [{ required: ['balancer'] }, { required: ['balancers'] }],
    });
    expect(schema.additionalProperties).toBe(false);
    expect(stdout).toContain('"unhealthy_threshold"');
    expect(stdout).toContain('"keep_alive_timeout"');
  });
});

describe('deploy init', () => {
  it('writes a starter deploy.yml that loads cleanly', async () => {
    const file = path.join(await tempDir(), 'deploy.yml');
    const { exitCode, stdout } = await deploy('init', '-c', file);
    expect(exitCode).toBe(0);
    expect(stdout).toContain(`wrote ${file}`);
    const config = await loadConfig(file, { env: {} });
    expect(config.balancers).toEqual([
      {
        kind: 'static',
        name: 'static',
        targets: {},
        healthCheck: {
          interval: 5_000,
          timeout: 2_000,
          unhealthyThreshold: 2,
          healthyThreshold: 2,
        },
      },
    ]);
    expect(config.runtime).toEqual({ kind: 'command' });
    expect(config.hosts).toHaveLength(2);
    expect(config.drain).toEqual({
      method: 'health',
      answer: 503,
      overlap: 15_000,
      maxRequest: 30_000,
      stopTimeout: 60_000,
    });
    expect(config.services.every((s) => s.keepAliveTimeout === undefined)).toBe(true);
  });

  it('refuses to replace an existing file without --force', async () => {
    const file = path.join(await tempDir(), 'deploy.yml');
    await writeFile(file, 'service: mine\n');
    const { exitCode, stderr } = await deploy('init', '-c', file);
    expect(exitCode).toBe(2);
    expect(stderr).toBe(`deploy: ${file} already exists; pass --force to replace it`);
    expect(await readFile(file, 'utf8')).toBe('service: mine\n');
  });

  it('replaces an existing file with --force', async () => {
    const file = path.join(await tempDir(), 'deploy.yml');
    await writeFile(file, 'service: mine\n');
    const { exitCode } = await deploy('init', '-c', file, '--force');
    expect(exitCode).toBe(0);
    await expect(loadConfig(file, { env: {} })).resolves.toMatchObject({ service: 'app' });
  });
});
