/**
 * `npm run demo`, `npm test`, `npm run bench` and `npm run lab` start here
 * (package.json `predemo`, `pretest`, `prebench`, `prelab`). They run under the
 * pinned node (scripts/pinned-node.ts) and say so in one line when npm's own
 * node is another; a node still too old (the devDependencies left out, or a
 * machine the pinned binary is not for) stops them with one line saying what
 * to install, not with whatever the first incompatible module throws.
 */
import { INSTALL_NODE, nodeVersionProblem } from '../src/node-version.js';
import { pinnedNodeNotice } from './pinned-node.js';

const problem = nodeVersionProblem(
  process.versions.node,
  "this machine's node",
  `${INSTALL_NODE} (README.md, "What you need", says how, also from the npm registry)`,
);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
const notice = pinnedNodeNotice(
  process.env.npm_config_user_agent,
  process.versions.node,
  process.execPath,
);
if (notice) process.stderr.write(`${notice}\n`);
