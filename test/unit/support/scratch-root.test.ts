import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
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

  it('says nothing when nothing was left', () => {
    expect(describeLeftovers('/tmp/x', { dirs: [], processes: [] })).toBeUndefined();
  });
});
