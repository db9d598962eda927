import { runProbe } from './probe.js';

// dist/probe.cjs: `node probe.cjs --dir DIR --max-age 30s [--expected N]`
const { code, line } = runProbe(process.argv.slice(2), Date.now());
(code === 0 ? process.stdout : process.stderr).write(`${line}\n`);
process.exitCode = code;
