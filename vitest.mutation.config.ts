import { defineConfig } from 'vitest/config';

// Stryker runs the tests once per mutant: only the unit tests of the mutated dirs, no e2e lab.
export default defineConfig({
  test: {
    include: [
      'test/unit/timing/**/*.test.ts',
      'test/unit/balancer/*-invariants.test.ts',
      'test/unit/hysteresis/**/*.test.ts',
      'test/unit/watchdog/decide.test.ts',
      'test/unit/evidence/canary-rule.test.ts',
      'test/unit/evidence/binomial.test.ts',
      'test/unit/rollout/plan.test.ts',
      'test/unit/rollout/handshake-lists.test.ts',
    ],
  },
});
