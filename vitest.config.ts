import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each PGlite instance takes ~250 MB; two forks keep the 2-core machines busy without swapping.
    pool: 'forks',
    maxWorkers: 2,
  },
});
