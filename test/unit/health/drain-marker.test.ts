import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchDrainMarker } from '../../../src/health/drain-marker.js';
import { tempDir } from './support.js';

describe('watchDrainMarker', () => {
  let dir: string;
  let remove: () => Promise<void>;
  beforeEach(async () => ({ dir, remove } = await tempDir()));
  afterEach(() => remove());

  it('says draining while the marker exists and not once it is removed', async () => {
    const marker = path.join(dir, 'draining');
    const watch = watchDrainMarker(marker, { maxAgeMs: 0 });
    expect(await watch.isDraining()).toBe(false);
    await writeFile(marker, 'deploy');
    expect(await watch.isDraining()).toBe(true);
    await rm(marker);
    expect(await watch.isDraining()).toBe(false);
  });

  it('answers from its cache until the answer is older than maxAgeMs', async () => {
    const marker = path.join(dir, 'draining');
    let t = 1_000;
    const watch = watchDrainMarker(marker, { maxAgeMs: 250, now: () => t });
    expect(await watch.isDraining()).toBe(false);
    await writeFile(marker, 'deploy');
    t += 249;
    expect(await watch.isDraining()).toBe(false);
    t += 1;
    expect(await watch.isDraining()).toBe(true);
  });

  it('lets concurrent callers share one look at the file', async () => {
    const marker = path.join(dir, 'draining');
    await writeFile(marker, 'deploy');
    const watch = watchDrainMarker(marker, { maxAgeMs: 0 });
    const first = watch.isDraining();
    const second = watch.isDraining();
    expect(second).toBe(first);
    expect(await first).toBe(true);
  });
});
