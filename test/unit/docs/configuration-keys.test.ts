import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { keysAt } from '../../support/schema-keys.js';

const root = path.resolve(import.meta.dirname, '..', '..', '..');
const doc = readFileSync(path.join(root, 'docs', 'configuration.md'), 'utf8');

/**
 * The reference's tables: `### \`balancer\`` opens a section, a line
 * `` `check`: `` a table of keys inside the section's `check`; each row's first
 * cell is a key.
 */
function documentedKeys(): { section: string; key: string; line: number }[] {
  const lines = doc.split('\n');
  const start = lines.findIndex((l) => l === '## Reference');
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const found: { section: string; key: string; line: number }[] = [];
  let section = '';
  let table = '';
  for (let i = start; i < end; i++) {
    const line = lines[i] ?? '';
    const heading = /^### `([^`]+)`/.exec(line);
    if (heading) section = table = heading[1] ?? '';
    if (line === '### Top level') section = table = '';
    const sub = /^`([a-z_]+)`:$/.exec(line);
    if (sub) table = `${section}.${sub[1]}`;
    const row = /^\| `([a-z_]+)` +\|/.exec(line);
    if (row) found.push({ section: table, key: row[1] ?? '', line: i + 1 });
  }
  return found;
}

describe('docs/configuration.md against the schema', () => {
  const rows = documentedKeys();

  it('documents keys in every section of the reference', () => {
    const sections = new Set(rows.map((r) => r.section));
    for (const s of ['', 'ssh', 'hosts[]', 'balancer', 'drain', 'rollout', 'host', 'runtime'])
      expect(sections, s).toContain(s);
    expect(sections).toContain('services[].check');
    expect(sections).toContain('watchdog');
  });

  it('every key the reference lists is one deploy.yml takes there', () => {
    const unknown = rows
      .filter((r) => !keysAt(r.section).has(r.key))
      .map((r) => `configuration.md:${r.line}: ${r.section ? `${r.section}.` : ''}${r.key}`);
    expect(unknown).toEqual([]);
  });

  it('every key deploy.yml takes in a documented section is listed in it', () => {
    const missing: string[] = [];
    for (const section of new Set(rows.map((r) => r.section))) {
      const listed = new Set(rows.filter((r) => r.section === section).map((r) => r.key));
      for (const key of keysAt(section))
        if (!listed.has(key)) missing.push(`${section ? `${section}.` : ''}${key}`);
    }
    expect(missing).toEqual([]);
  });
});
