import { spawn } from 'node:child_process';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  describeLeftovers,
  leftovers,
  makeScratchRoot,
  sweep,
} from '../../support/run/scratch-root.js';
import { eventually } from '../host/helpers.js';

describe('the run scratch root', () => {
  it('finds a directory and a process left inside it, names both, and sweeps them', async () => {
    const root = await makeScratchRoot('probe');
    await mkdir(path.join(root, 'handoff-host-x', 'releases'), { recursive: true });
    await mkdir(path.join(root, 'tsx-0'));
    const child = spawn('sleep', ['60'], {
      cwd: path.join(root, 'handoff-host-x'),
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const found = await eventually(async () => {
      const now = await leftovers(root);
      return now.processes.length > 0 ? now : undefined;
    });
    expect(found.dirs).toEqual([path.join(root, 'handoff-host-x')]);
    expect(found.processes.map((p) => p.pid)).toEqual([child.pid]);
    const text = describeLeftovers(root, found);
    expect(text).toContain(`process ${child.pid}: sleep 60`);
    expect(text).toContain(`directory ${root}/handoff-host-x`);
    await sweep(root, found);
    expect(await exited).toBeDefined();
    expect(await leftovers(root)).toEqual({ dirs: [], processes: [] });
  });

  it('finds a child started with the run TMPDIR wherever it works, and one in a watched lab dir', async () => {
    const root = await makeScratchRoot('probe');
    const lab = await makeScratchRoot('lab');
    const inherited = spawn('sleep', ['60'], {
      cwd: '/',
      env: { ...process.env, TMPDIR: root },
      stdio: 'ignore',
    });
    const inLab = spawn('sleep', ['61'], { cwd: lab, stdio: 'ignore' });
    const exits = [inherited, inLab].map(
      (child) => new Promise((resolve) => child.once('exit', resolve)),
    );
    const found = await eventually(async () => {
      const now = await leftovers(root, [lab]);
      return now.processes.length === 2 ? now : undefined;
    });
    expect(found.processes.map((p) => p.pid).sort()).toEqual([inherited.pid, inLab.pid].sort());
    // a watched dir's processes count; the dir itself may stay (the lab cleans it)
    expect(found.dirs).toEqual([]);
    await sweep(root, found);
    await Promise.all(exits);
    expect((await leftovers(root, [lab])).processes).toEqual([]);
    await rm(lab, { recursive: true, force: true });
  });

  it('says nothing when nothing was left', () => {
    expect(describeLeftovers('/tmp/x', { dirs: [], processes: [] })).toBeUndefined();
  });
});
