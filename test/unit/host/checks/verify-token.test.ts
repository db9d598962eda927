import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { verifyToken } from '../../../../src/host/checks/verify-token.js';
import { tempDir } from '../helpers.js';

let state: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: state, cleanup } = await tempDir());
});
afterEach(() => cleanup());

describe("the token of handoff's own checks", () => {
  it('is written once into host.state, readable by the service, and the same for checks at once', async () => {
    const tokens = await Promise.all(Array.from({ length: 8 }, () => verifyToken(state)));
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).toMatch(/^[0-9a-f]{64}$/);
    const file = path.join(state, 'verify-token');
    expect((await readFile(file, 'utf8')).trim()).toBe(tokens[0]);
    expect((await stat(file)).mode & 0o777).toBe(0o644);
    expect(await verifyToken(state)).toBe(tokens[0]);
  });

  it('is none without a host.state, and the check still runs', async () => {
    expect(await verifyToken(path.join(state, 'missing'))).toBeUndefined();
  });
});
