import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

/**
 * The file `deploy setup` installs as the host agent: `agent/deploy.cjs`
 * (and the library files beside it, which it names by their content)
 * beside the CLI bundle this program runs from, built by the same
 * `npm run build`, so a host runs exactly the orchestrator's version without
 * the orchestrator-only packages (scripts/build.ts). Run from source (tsx), it
 * is the one `npm run build` wrote.
 */
export function agentBundlePath(): string {
  // empty in the agent itself (CommonJS): there the agent is the program that runs
  const url = (import.meta as Partial<ImportMeta>).url;
  if (!url) return process.argv[1] ?? '';
  const here = fileURLToPath(url);
  if (path.basename(here) === 'deploy.mjs')
    return path.join(path.dirname(here), 'agent', 'deploy.cjs');
  return path.resolve(path.dirname(here), '..', '..', 'dist', 'agent', 'deploy.cjs');
}

/** a library file beside the agent (scripts/build.ts), named by its content */
export interface AgentLib {
  readonly name: string;
  readonly content: Buffer;
}

/** `require("./deploy-<package>-<sha256 prefix>.cjs")`, as scripts/build.ts names them */
const LIB_REF = /"\.\/(deploy-[a-z]+-[0-9a-f]{12}\.cjs)"/g;

/** The agent file and its sha256: what every fleet command expects of a host. */
export async function readAgent(): Promise<{ path: string; content: Buffer; sha256: string }> {
  const file = agentBundlePath();
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch {
    throw new UsageError(`the agent bundle ${file} is missing; run 'npm run build' first`);
  }
  return { path: file, content, sha256: createHash('sha256').update(content).digest('hex') };
}

/** The agent and the library files it names: what `deploy setup` installs. */
export async function readAgentBundle(): Promise<{
  path: string;
  content: Buffer;
  sha256: string;
  libs: readonly AgentLib[];
}> {
  const agent = await readAgent();
  // the libraries this agent requires (not older ones a previous build left beside it),
  // every one of them: an agent without one would fail on a host the first time it needs it
  const refs = agent.content.toString('latin1').matchAll(LIB_REF);
  const names = [...new Set([...refs].map((m) => m[1]))];
  const libs = await Promise.all(
    names.map(async (name = '') => {
      const lib = path.join(path.dirname(agent.path), name);
      const libContent = await readFile(lib).catch(() => {
        throw new UsageError(`the agent library ${lib} is missing; run 'npm run build' again`);
      });
      return { name, content: libContent };
    }),
  );
  return { ...agent, libs };
}
