import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // a run that leaves a directory or a process behind fails (test/support/run/)
          globalSetup: ['test/support/run/global-scratch.ts'],
          setupFiles: ['test/support/run/use-scratch.ts'],
          maxWorkers: 2,
          // the unit files first, then the labs
          sequence: { groupOrder: 0 },
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          // builds the bundle; the run fails on a leftover, as the unit run does
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/support/run/use-scratch.ts'],
          // each file's lab has its own loopback subnet (127.0.N), work dir and mount
          // namespaces, so three files run side by side on two cores: a lab mostly
          // waits (health intervals, overlaps), and a test waits on conditions, never
          // on speed
          fileParallelism: true,
          maxWorkers: 3,
          sequence: { groupOrder: 1 },
          testTimeout: 360_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
