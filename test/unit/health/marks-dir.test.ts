import { describe, expect, it } from 'vitest';
import { resolveMarksDir } from '../../../src/health/marks-dir.js';

describe('where a worker writes its marks', () => {
  const env = { HANDOFF_MARKS_DIR: '/run/handoff/api/workers', HANDOFF_STATE: '/run/handoff/api' };

  it('takes an explicit dir first', () => {
    expect(resolveMarksDir({ dir: '/srv/marks', stateDir: '/elsewhere' }, env)).toBe('/srv/marks');
  });

  it("then the check's directory the runtime exports as HANDOFF_MARKS_DIR, over a stateDir", () => {
    expect(resolveMarksDir({ stateDir: '/elsewhere' }, env)).toBe('/run/handoff/api/workers');
  });

  it('then <stateDir>/marks, and <HANDOFF_STATE>/marks without one', () => {
    expect(resolveMarksDir({ stateDir: '/elsewhere' }, { HANDOFF_STATE: '/x' })).toBe(
      '/elsewhere/marks',
    );
    expect(resolveMarksDir({}, { HANDOFF_STATE: '/run/handoff/api', HANDOFF_MARKS_DIR: '' })).toBe(
      '/run/handoff/api/marks',
    );
  });

  it('refuses to guess when nothing says where', () => {
    expect(() => resolveMarksDir({}, {})).toThrow(
      /no marks directory: pass dir or stateDir, or run under handoff/,
    );
  });
});
