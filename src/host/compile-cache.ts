import { enableCompileCache } from 'node:module';

/**
 * Node's module compile cache for the host agent: `host.agent/bin/compile-cache/`,
 * beside the agent's entry, which enables it before it requires a chunk
 * (src/cli/agent-main.ts). A tick then reads the code V8 compiled for its chunk
 * instead of compiling it again every minute (docs/benchmarks.md). Node keeps
 * one directory per node version, architecture and user, and one file per
 * source file, checked against the source's hash: a new agent or a new node
 * only adds files, so `deploy setup` empties the directory when it installs
 * a new agent (src/setup/setup.ts).
 */
export const COMPILE_CACHE_DIR = 'compile-cache';

/**
 * Never fails the process: node answers a directory it cannot make (read-only,
 * EACCES, a file in the way) with a status, not an exception, and a cache it
 * cannot write at exit is skipped; `NODE_DISABLE_COMPILE_CACHE` turns it off
 * and `NODE_COMPILE_CACHE=DIR` puts it elsewhere. A node before 22.8 has no
 * such function: the agent then runs without, and says the node is too old
 * (run-main.ts) instead of failing here.
 */
export function enableAgentCompileCache(agentDir: string): void {
  const enable = enableCompileCache as typeof enableCompileCache | undefined;
  enable?.(`${agentDir}/${COMPILE_CACHE_DIR}`);
}
