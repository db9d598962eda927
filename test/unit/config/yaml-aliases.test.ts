import { describe, expect, it } from 'vitest';
import { minimal, problemsOf } from './temp-config.js';

describe('YAML aliases in deploy.yml', () => {
  it('refuses an alias bomb with one located line instead of expanding it', async () => {
    const rows = ['a: &a [x, x, x, x, x, x, x, x, x]'];
    for (const [name, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
    ] as const)
      rows.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
    expect(await problemsOf(`${rows.join('\n')}\n`)).toEqual([
      'invalid YAML: its aliases expand into too many nodes (the limit of 100 keeps out alias bombs); write the values out (FILE:2:8)',
    ]);
  });

  it('refuses an alias with no anchor, pointing at the alias', async () => {
    expect(await problemsOf(minimal.replace('user: deploy', 'user: *deployer'))).toEqual([
      'invalid YAML: alias *deployer has no anchor &deployer before it (FILE:3:9)',
    ]);
  });

  it('points at the one alias without an anchor among aliases that resolve', async () => {
    const text = minimal.replace(
      'services:\n  - name: web\n    check: { http: "http://127.0.0.1:8080/health" }',
      'services:\n  - name: web\n    check: &check { http: "http://127.0.0.1:8080/health" }\n  - name: api\n    check: *check\n  - name: x\n    check: *chek',
    );
    expect(await problemsOf(text)).toEqual([
      'invalid YAML: alias *chek has no anchor &chek before it (FILE:22:12)',
    ]);
  });
});
