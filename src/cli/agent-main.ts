/**
 * The host agent's entry, `host.agent/bin/deploy` (scripts/build.ts): a cron
 * tick goes to the tick's chunk (tick-main.ts) before anything else is read;
 * everything else, and a tick's help or mistake, to the whole agent, whose
 * main.ts starts itself. Both chunks are files beside this one, named by
 * their content, so this file's sha256 names the whole agent.
 */
import { enableAgentCompileCache } from '../host/compile-cache.js';

/**
 * Defined by scripts/build.ts in the agent it builds, and only there: the
 * compile cache lives beside the built entry (host/compile-cache.ts), never
 * beside this source file.
 */
declare const HANDOFF_AGENT_BUNDLE: boolean;
if (typeof HANDOFF_AGENT_BUNDLE === 'boolean') enableAgentCompileCache(__dirname);

const argv = process.argv.slice(2);
const ticking =
  argv[0] === 'watchdog'
    ? import('./tick-main.js').then((tick) => tick.startTick(argv))
    : Promise.resolve(false);
void ticking.then(async (done) => {
  if (!done) await import('./main.js');
});
