import { describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import {
  MIN_NODE,
  nodeVersionProblem,
  parseNodeVersion,
  versionAtLeast,
} from '../../src/node-version.js';

describe('the Node version handoff needs', () => {
  it('reads what node --version and process.versions.node print', () => {
    expect(parseNodeVersion('v20.11.0\n')).toEqual([20, 11, 0]);
    expect(parseNodeVersion('24.22.3')).toEqual([24, 22, 3]);
    expect(parseNodeVersion('v25.0.0-nightly2026')).toEqual([25, 0, 0]);
    for (const garbage of ['', 'node: not found', 'v22', '22.12', 'v22.x.1'])
      expect(parseNodeVersion(garbage)).toBeUndefined();
  });

  it('compares part by part, numerically', () => {
    const min = parseNodeVersion(MIN_NODE)!;
    expect(min).toEqual([22, 12, 0]);
    const ok = ['22.12.0', '22.12.1', '22.20.0', '23.0.0', '24.0.0', '100.0.0'];
    const old = ['22.11.9', '22.9.99', '20.19.5', '21.99.99', '8.100.100', '0.0.0'];
    for (const v of ok) expect(versionAtLeast(parseNodeVersion(v)!, min), v).toBe(true);
    for (const v of old) expect(versionAtLeast(parseNodeVersion(v)!, min), v).toBe(false);
  });

  it('says in one line which node is too old, its version and what to install', () => {
    expect(nodeVersionProblem('24.22.3\n', 'node')).toBeUndefined();
    expect(nodeVersionProblem('v22.12.0', 'node')).toBeUndefined();
    expect(nodeVersionProblem('20.11.0\n', "this machine's node")).toBe(
      "this machine's node is 20.11.0, older than 22.12: install Node 22 (22.12 or later) or 24",
    );
    expect(nodeVersionProblem('v22.11.0', 'node', 'upgrade it')).toBe(
      'node is 22.11.0, older than 22.12: upgrade it',
    );
  });

  it('says what a node answered that is no version, shortened to one line', () => {
    const said = nodeVersionProblem(`Welcome to the host!\n${'x'.repeat(200)}`, 'node')!;
    expect(said).toBe(
      'node did not answer a version ("Welcome to the host!"): install Node 22 (22.12 or later) or 24',
    );
    expect(nodeVersionProblem('', 'node')).toContain('did not answer a version ("nothing")');
  });

  it('the CLI refuses to run on an older node with that line and exit 2', async () => {
    const stderr: unknown[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((s) => stderr.push(s) > 0);
    try {
      expect(await main(['check'], '20.11.0')).toBe(2);
    } finally {
      write.mockRestore();
    }
    expect(stderr).toEqual([
      "deploy: this machine's node is 20.11.0, older than 22.12: install Node 22 (22.12 or later) or 24\n",
    ]);
  });
});
