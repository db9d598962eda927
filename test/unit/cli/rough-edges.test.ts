import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { configJsonSchema } from '../../../src/config/json-schema.js';
import { minimal, tempDir } from '../config/temp-config.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** `deploy …` as a process, from the repository (tsx): exit code and both streams */
async function deploy(args: readonly string[], env: Record<string, string> = {}) {
  const run = await execa(
    'node',
    ['--import', 'tsx', path.join(root, 'src/cli/main.ts'), ...args],
    {
      cwd: root,
      reject: false,
      env,
    },
  );
  return { code: run.exitCode, stdout: run.stdout, stderr: run.stderr };
}

describe('rough edges a new user hits', () => {
  it('init -c sub/dir/deploy.yml creates the folder, and heads the file with the schema line', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'sub/dir/deploy.yml');
    const r = await deploy(['init', '-c', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`created ${path.join(dir, 'sub')}/`);
    const text = await readFile(file, 'utf8');
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./deploy.schema.json');
    const schema = JSON.parse(
      await readFile(path.join(dir, 'sub/dir/deploy.schema.json'), 'utf8'),
    ) as { $id: string };
    expect(schema.$id).toBe('urn:handoff:schema:deploy.yml');
    // and the file it wrote passes its own check
    const check = await deploy(['check', '-c', file]);
    expect(check.code, check.stderr).toBe(0);
  });

  it('check passes a heartbeat check without expected: the workers say how many slots they run', async () => {
    const file = path.join(await tempDir(), 'deploy.yml');
    await writeFile(
      file,
      minimal.replace(
        'check: { http: "http://127.0.0.1:8080/health" }',
        'check: { heartbeat: { dir: marks, max_age: 30s } }',
      ),
    );
    const check = await deploy(['check', '-c', file]);
    expect(check.code, check.stderr).toBe(0);
  });

  it('init under a path whose folder is a file says so in words, exit 2', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'afile'), '');
    const r = await deploy(['init', '-c', path.join(dir, 'afile/deploy.yml')]);
    expect(r.code).toBe(2);
    expect(r.stderr.replaceAll(dir, 'DIR')).toBe(
      'deploy: cannot write DIR/afile/deploy.yml: a part of the path is a file, not a folder',
    );
  });

  it('lock status refuses --force (only release can force)', async () => {
    const r = await deploy(['lock', 'status', '--force']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown option '--force'");
  });

  it('check --live with a static balancer says there is nothing live to read, and with no host read it does not pass', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'deploy.yml');
    // hosts where nothing listens (this file's loopback addresses), an agent socket that is not
    // there: credentials are set up, so every host is tried and none answers
    await writeFile(file, minimal.replaceAll('10.0.0.', '127.0.110.'));
    const r = await deploy(['check', '--live', '-c', file], {
      SSH_AUTH_SOCK: path.join(dir, 'no-agent.sock'),
    });
    expect(r.stderr).toContain(
      'WARN --live: balancer.kind static has no API, so there is nothing live to read; checked the settings in',
    );
    // the hosts are not there (issue 34): --live reads nothing, exit 3 (no key and no agent at
    // all is a bad setup instead, exit 2 before any host: no-ssh-key.test.ts)
    expect(r.code, r.stderr).toBe(3);
    expect(r.stderr).toMatch(/deploy: --live read no host: all 2 could not be reached/);
  });
});

describe('the JSON Schema of deploy.yml for editors', () => {
  it('has an $id and picks the balancer branch by kind, so a typo fails only that branch', () => {
    const schema = configJsonSchema() as {
      $id: string;
      properties: { balancer: Record<string, unknown> };
    };
    expect(schema.$id).toBe('urn:handoff:schema:deploy.yml');
    const balancer = schema.properties.balancer as {
      oneOf?: unknown;
      properties: { kind: { enum: string[] } };
      allOf: {
        if: { properties: { kind: { const: string } } };
        then: { additionalProperties: boolean; properties: Record<string, unknown> };
      }[];
    };
    expect(balancer.oneOf).toBeUndefined();
    expect(balancer.properties.kind.enum).toEqual(['alb', 'haproxy', 'nginx', 'static']);
    expect(balancer.allOf.map((b) => b.if.properties.kind.const)).toEqual([
      'alb',
      'haproxy',
      'nginx',
      'static',
    ]);
    for (const branch of balancer.allOf) expect(branch.then.additionalProperties).toBe(false);
    expect(Object.keys(balancer.allOf[1]!.then.properties)).toContain('socket');
  });
});
