import { describe, expect, it } from 'vitest';
import { hostNodeProblem, oldNodes } from '../../../src/agent-client/node-check.js';
import { HostUnreachableError } from '../../../src/errors.js';
import type { ExecResult } from '../../../src/remote/transport.js';

/** a host whose `node -p process.versions.node` answers `r` */
const answering = (r: Partial<ExecResult>) => ({
  nodeVersion: () => Promise.resolve({ code: 0, stdout: '', stderr: '', ...r }),
});

describe("a host's node", () => {
  it('passes 22.12 and later', async () => {
    expect(await hostNodeProblem(answering({ stdout: '22.12.0\n' }))).toBeUndefined();
    expect(await hostNodeProblem(answering({ stdout: '24.22.3\n' }))).toBeUndefined();
  });

  it('refuses an older one naming its version and where to install the new one', async () => {
    expect(await hostNodeProblem(answering({ stdout: '20.11.0\n' }))).toBe(
      'node is 20.11.0, older than 22.12: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
    );
  });

  it('says there is none when the shell finds no node, and what a failing node said', async () => {
    expect(
      await hostNodeProblem(answering({ code: 127, stderr: 'sh: 1: node: not found\n' })),
    ).toBe(
      'no node on the PATH of ssh.user: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
    );
    expect(
      await hostNodeProblem(answering({ code: 9, stderr: 'node: bad option: -p\nmore\n' })),
    ).toBe(
      'node -p process.versions.node failed (exit 9: node: bad option: -p): install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
    );
  });

  it('across a fleet: one line per old host in the hosts order, leaving unreachable ones to the next step', async () => {
    const nodes: Record<string, string> = {
      'web-1': '24.1.0',
      'web-2': '20.11.0',
      'web-4': '22.11.9',
    };
    const hosts = ['web-1', 'web-2', 'web-3', 'web-4'].map((name) => ({ name }));
    const lines = await oldNodes(hosts, (h) =>
      h.name === 'web-3'
        ? Promise.reject(new HostUnreachableError('web-3', 'connection refused'))
        : Promise.resolve(answering({ stdout: `${nodes[h.name]}\n` })),
    );
    expect(lines).toEqual([
      'web-2: node is 20.11.0, older than 22.12: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
      'web-4: node is 22.11.9, older than 22.12: install Node 22 (22.12 or later) or 24 first on the PATH of ssh.user',
    ]);
  });
});
