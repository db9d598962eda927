import { mkdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  listReleases,
  publishRelease,
  readLiveRelease,
  readPreviousRelease,
  switchRelease,
} from '../../../src/host/releases.js';
import { scratchDir } from '../../support/scratch.js';

let root: string;
beforeEach(async () => {
  root = await scratchDir('handoff-releases-');
});

describe('releases on a host', () => {
  it('publishes a release directory with its files', async () => {
    expect(await publishRelease(root, 'r1', { '.env': 'RELEASE=r1\n' })).toBe('published');
    expect(await readFile(path.join(root, 'releases/r1/.env'), 'utf8')).toBe('RELEASE=r1\n');
    expect(await listReleases(root)).toEqual(['r1']);
  });

  it('publishing the same content twice changes nothing', async () => {
    await publishRelease(root, 'r1', { '.env': 'RELEASE=r1\n' });
    expect(await publishRelease(root, 'r1', { '.env': 'RELEASE=r1\n' })).toBe('unchanged');
  });

  it('refuses to rewrite the live release with other content', async () => {
    await publishRelease(root, 'r1', { '.env': 'RELEASE=r1\n' });
    await switchRelease(root, 'r1');
    await expect(publishRelease(root, 'r1', { '.env': 'RELEASE=r1\nX=1\n' })).rejects.toThrow(
      /live on this host/,
    );
  });

  it('keeps the files an artifact step already delivered into the release directory', async () => {
    await mkdir(path.join(root, 'releases/r2'), { recursive: true });
    await writeFile(path.join(root, 'releases/r2/app.js'), 'build');
    expect(await publishRelease(root, 'r2', { '.env': 'RELEASE=r2\n' })).toBe('published');
    expect(await readFile(path.join(root, 'releases/r2/app.js'), 'utf8')).toBe('build');
    expect(await readFile(path.join(root, 'releases/r2/.env'), 'utf8')).toBe('RELEASE=r2\n');
  });

  it('refuses file names that could escape the release directory', async () => {
    await expect(publishRelease(root, 'r1', { '../evil': 'x' })).rejects.toThrow(
      /not a plain file name/,
    );
  });

  it('switches current and remembers the previous release', async () => {
    await publishRelease(root, 'r1', {});
    await publishRelease(root, 'r2', {});
    expect(await switchRelease(root, 'r1')).toEqual({ previous: null, current: 'r1' });
    expect(await switchRelease(root, 'r2')).toEqual({ previous: 'r1', current: 'r2' });
    expect(await readLiveRelease(root)).toBe('r2');
    expect(await readPreviousRelease(root)).toBe('r1');
    expect(await readlink(path.join(root, 'current'))).toBe('releases/r2');
  });

  it('switching back is a switch like any other', async () => {
    await publishRelease(root, 'r1', {});
    await publishRelease(root, 'r2', {});
    await switchRelease(root, 'r1');
    await switchRelease(root, 'r2');
    expect(await switchRelease(root, 'r1')).toEqual({ previous: 'r2', current: 'r1' });
  });

  it('refuses to switch to a release that was never published', async () => {
    await expect(switchRelease(root, 'r9')).rejects.toThrow(/not published on this host/);
  });
});
