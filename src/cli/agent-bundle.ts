import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

/**
 * The file `deploy setup` installs as the host agent: `agent/deploy.cjs`
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

export async function readAgentBundle(): Promise<{
  path: string;
  content: Buffer;
  sha256: string;
}> {
  const file = agentBundlePath();
  let content: Buffer;
  try {
    content = await readFile(file);
  } catch {
    throw new UsageError(`the agent bundle ${file} is missing; run 'npm run build' first`);
  }
  return { path: file, content, sha256: createHash('sha256').update(content).digest('hex') };
}
