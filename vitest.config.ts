import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          // the lab binds fixed loopback addresses and mounts: one file at a time
          fileParallelism: false,
          testTimeout: 360_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
