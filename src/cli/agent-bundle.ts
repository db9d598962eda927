import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../errors.js';

/**
 * The file `deploy setup` installs as the host agent: the bundle this very
 * program runs from, so a host runs exactly the orchestrator's version. Run
 * from source (tsx), it is the bundle `npm run build` wrote.
 */
export function agentBundlePath(): string {
  const here = fileURLToPath(import.meta.url);
  if (path.basename(here) === 'deploy.mjs') return here;
  return path.resolve(path.dirname(here), '..', '..', 'dist', 'deploy.mjs');
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
