import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { minimal, problemsOf, writeConfig } from './temp-config.js';

describe('rollout.artifact, keep_releases and upload_concurrency', () => {
  it('resolves the artifact beside deploy.yml and keeps {release} for the rollout', async () => {
    const file = await writeConfig(
      `${minimal}rollout:\n  artifact: dist/app-{release}.tgz\n  keep_releases: 3\n`,
    );
    const config = await loadConfig(file, { env: {} });
    expect(config.rollout.artifact).toMatch(/\/dist\/app-\{release\}\.tgz$/);
    expect(config.rollout.artifact?.startsWith('/')).toBe(true);
    expect(config.rollout.keepReleases).toBe(3);
    expect(config.rollout.uploadConcurrency).toBe(4);
  });

  it('refuses keep_releases below 1 with its key and line', async () => {
    const lines = await problemsOf(`${minimal}rollout:\n  keep_releases: 0\n`);
    expect(lines).toEqual([
      expect.stringMatching(/^rollout\.keep_releases: must be at least 1 \(FILE:\d+:\d+\)$/),
    ]);
  });
});
