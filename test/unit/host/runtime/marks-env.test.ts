import { describe, expect, it } from 'vitest';
import type { ServiceConfig } from '../../../../src/config/types.js';
import { releaseMarksEnv } from '../../../../src/host/runtime/marks-env.js';

const service = (name: string, dir?: string): ServiceConfig => ({
  name,
  check:
    dir === undefined
      ? { kind: 'runtime', timeout: 2_000 }
      : { kind: 'heartbeat', dir, maxAge: 30_000 },
  stopProof: true,
});

describe("the marks directories in the release's .env", () => {
  it('names the one heartbeat service plainly and by service, for the compose file to hand on', () => {
    expect(
      releaseMarksEnv('/run/handoff/api', [service('web'), service('publish-worker', 'marks')]),
    ).toEqual({
      HANDOFF_MARKS_DIR: '/run/handoff/api/marks',
      HANDOFF_MARKS_DIR_PUBLISH_WORKER: '/run/handoff/api/marks',
    });
  });

  it('names several only by service: one plain name would be wrong for all but one', () => {
    expect(
      releaseMarksEnv('/run/handoff/api', [service('mail', 'mail'), service('jobs', '/var/jobs')]),
    ).toEqual({
      HANDOFF_MARKS_DIR_MAIL: '/run/handoff/api/mail',
      HANDOFF_MARKS_DIR_JOBS: '/var/jobs',
    });
  });

  it('adds nothing without a heartbeat check', () => {
    expect(releaseMarksEnv('/run/handoff/api', [service('web')])).toEqual({});
  });
});
