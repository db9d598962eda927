import path from 'node:path';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');
const rules = (
  (await import(path.join(root, '.dependency-cruiser.mjs'))) as { default: IConfiguration }
).default;

async function violations(dir: string, tsConfig: string): Promise<string[]> {
  const cwd = process.cwd();
  process.chdir(dir);
  try {
    const result = await cruise(['src'], {
      ...rules.options,
      ruleSet: { forbidden: rules.forbidden ?? [] },
      validate: true,
      tsConfig: { fileName: tsConfig },
    });
    const output = result.output as ICruiseResult;
    return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort();
  } finally {
    process.chdir(cwd);
  }
}

describe('the layout rules (npm run check: depcruise)', () => {
  it('name each import that breaks one, type-only circles included', async () => {
    const fixture = path.join(root, 'test/fixtures/layout');
    expect(await violations(fixture, 'tsconfig.json')).toEqual([
      'health-is-self-contained: src/health/ready.ts → src/rollout/plan.ts',
      'host-code-imports-no-orchestrator: src/host/agent-op.ts → src/rollout/plan.ts',
      'kind-folders-import-no-other-kind: src/balancer/a/kind.ts → src/balancer/b/kind.ts',
      'no-circular: src/rollout/plan.ts → src/rollout/step.ts',
      'only-the-registries-import-a-kind: src/rollout/preflight.ts → src/balancer/b/kind.ts',
      'pure-folders-do-no-io: src/timing/model.ts → fs',
    ]);
  });

  it('find none in src/', async () => {
    expect(await violations(root, 'tsconfig.json')).toEqual([]);
  }, 60_000);
});
