import { cp, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAgentBundle } from '../../../scripts/build.js';
import { toHostJson } from '../../../src/config/serialize.js';
import { hostFixture } from '../../support/host-fixture.js';
import { root } from './cli-process.js';
import { scratchDir } from '../../support/scratch.js';

/**
 * The agent as scripts/build.ts builds it, installed as `deploy setup` installs
 * it (`host.agent/bin/deploy`, its chunks beside it), running real ticks on a
 * host in a temp directory with no release yet: each tick reads the host
 * config, takes the lock, saves its counters and exits 0.
 */
let built: string;
const dirs: string[] = [];

beforeAll(async () => {
  built = await scratchDir('handoff-agent-build-');
  dirs.push(built);
  await buildAgentBundle(path.join(built, 'deploy.cjs'));
}, 60_000);

afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** what a cron tick inherits: no compile cache of the caller's (set at all, even empty, it counts) */
function callersEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_COMPILE_CACHE;
  delete env.NODE_DISABLE_COMPILE_CACHE;
  return env;
}

async function installedHost() {
  const h = await hostFixture();
  dirs.push(h.dir);
  const bin = path.join(h.dir, 'agent', 'bin');
  await mkdir(bin, { recursive: true });
  await cp(built, bin, { recursive: true });
  await rename(path.join(bin, 'deploy.cjs'), path.join(bin, 'deploy'));
  const config = path.join(h.dir, 't.json');
  await writeFile(config, toHostJson(h.config));
  const cache = path.join(bin, 'compile-cache');
  const env = callersEnv();
  const tick = (extra: NodeJS.ProcessEnv = {}) =>
    execa(process.execPath, [path.join(bin, 'deploy'), 'watchdog', '-c', config], {
      env: { ...env, ...extra },
      extendEnv: false,
      reject: false,
      all: true,
    });
  /** the files of this node's directory in the cache */
  const cached = async () => {
    const [version] = await readdir(cache);
    return version ? readdir(path.join(cache, version)) : [];
  };
  return { bin, cache, tick, cached };
}

/** what a tick on a host with no release says (on stderr, as cron logs it) */
const ticked = /no release is live/;

describe('the compile cache beside the installed agent', () => {
  it('is written by the first tick and read by the next', async () => {
    const h = await installedHost();
    const first = await h.tick();
    expect(first.exitCode, first.all).toBe(0);
    expect(first.all).toMatch(ticked);
    expect(await h.cached()).toHaveLength(1);
    const second = await h.tick({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(second.exitCode).toBe(0);
    expect(second.stderr).toMatch(/deploy-tick-[0-9a-f]{12}\.cjs was accepted/);
  });

  it('keeps a tick working when the directory cannot be made', async () => {
    const h = await installedHost();
    await writeFile(h.cache, 'in the way\n');
    const r = await h.tick();
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(ticked);
    expect(r.all).not.toMatch(/cache/i);
  });

  it('keeps a tick working when its entry cannot be written at exit', async () => {
    const h = await installedHost();
    expect((await h.tick()).exitCode).toBe(0);
    const [version] = await readdir(h.cache);
    const dir = path.join(h.cache, version ?? '');
    // each entry's name taken by a directory that is not empty: reading and renaming onto it fail
    for (const entry of await readdir(dir)) {
      await rm(path.join(dir, entry));
      await mkdir(path.join(dir, entry, 'x'), { recursive: true });
    }
    const r = await h.tick({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
    expect(r.exitCode, r.all).toBe(0);
    expect(r.stderr).toMatch(/Renaming \S+ to \S+\.\.\.failed/);
  });

  it('is left out by a node without it (before 22.8), which the tick then runs on', async () => {
    const h = await installedHost();
    const older = path.join(h.bin, '..', 'older-node.cjs');
    await writeFile(older, "delete require('node:module').enableCompileCache;\n");
    const r = await h.tick({ NODE_OPTIONS: `--require ${older}` });
    expect(r.exitCode, r.all).toBe(0);
    expect(r.all).toMatch(ticked);
    await expect(readdir(h.cache)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is not made with NODE_DISABLE_COMPILE_CACHE set', async () => {
    const h = await installedHost();
    const r = await h.tick({ NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(r.exitCode, r.stderr).toBe(0);
    await expect(readdir(h.cache)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is not made beside the entry run from source', async () => {
    const h = await installedHost();
    const config = path.join(path.dirname(path.dirname(h.bin)), 't.json');
    const r = await execa(
      process.execPath,
      ['--import', 'tsx', path.join(root, 'src/cli/agent-main.ts'), 'watchdog', '-c', config],
      { cwd: root, reject: false, env: callersEnv(), extendEnv: false },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    await expect(readdir(path.join(root, 'src/cli/compile-cache'))).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });
});

describe('what the agent leaves out (scripts/build.ts, ORCHESTRATOR_ONLY)', () => {
  it("carries no etcd client: the fleet lease's store is the orchestrator's, stubbed in the agent", async () => {
    const files = (await readdir(built)).filter((f) => f.endsWith('.cjs'));
    const texts = await Promise.all(files.map((f) => readFile(path.join(built, f), 'utf8')));
    const all = texts.join('\n');
    // the store's class and its gateway calls (kv/txn, lease/keepalive) are in no chunk
    expect(all).not.toMatch(/class EtcdLeaseStore|EtcdLeaseStore=class|lease\/keepalive|kv\/txn/);
    expect(all).toContain('./etcd/etcd-store.js is not in the host agent');
    // ssh2 neither, as before
    expect(all).toContain('ssh2 is not in the host agent');
  });
});
