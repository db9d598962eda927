/**
 * `npm run demo` and `npm test` start here (package.json `predemo`, `pretest`):
 * on an older node they stop with one line saying what to install, not with
 * whatever the first incompatible module throws.
 */
import { INSTALL_NODE, nodeVersionProblem } from '../src/node-version.js';

const problem = nodeVersionProblem(
  process.versions.node,
  "this machine's node",
  `${INSTALL_NODE} (README.md, "What you need", says how, also from the npm registry)`,
);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(2);
}
