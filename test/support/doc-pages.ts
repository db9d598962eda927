import { readdirSync } from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');

/** what a user reads: README.md and every page of docs/, repository-relative */
export const docPages: readonly string[] = [
  'README.md',
  ...readdirSync(path.join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
