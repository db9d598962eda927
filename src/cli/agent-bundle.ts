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

/** a file beside the agent (scripts/build.ts), a chunk or a library, named by its content */
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

/** The agent and the files it names, and they name: what `deploy setup` installs. */
export async function readAgentBundle(): Promise<{
  path: string;
  content: Buffer;
  sha256: string;
  libs: readonly AgentLib[];
}> {
  const agent = await readAgent();
  // the files this agent requires (not older ones a previous build left beside it), every
  // one of them: an agent without one would fail on a host the first time it needs it.
  // The entry names its two chunks (the tick's and the whole agent's), and they the libraries.
  const libs = new Map<string, Buffer>();
  const named = (content: Buffer): string[] =>
    [...content.toString('latin1').matchAll(LIB_REF)].map((m) => m[1] ?? '');
  let next = named(agent.content);
  while (next.length > 0) {
    const fresh = [...new Set(next)].filter((name) => !libs.has(name));
    const read = await Promise.all(
      fresh.map(async (name) => {
        const lib = path.join(path.dirname(agent.path), name);
        const libContent = await readFile(lib).catch(() => {
          throw new UsageError(`the agent library ${lib} is missing; run 'npm run build' again`);
        });
        return { name, content: libContent };
      }),
    );
    for (const lib of read) libs.set(lib.name, lib.content);
    next = read.flatMap((lib) => named(lib.content));
  }
  return { ...agent, libs: [...libs].map(([name, content]) => ({ name, content })) };
}
