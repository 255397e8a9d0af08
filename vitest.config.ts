import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each PGlite instance takes ~250 MB; two forks keep the 2-core machines busy without swapping.
    pool: 'forks',
    maxWorkers: 2,
    // plan, apply and validate keep a parse cache per repository folder (src/app/repositoryParseCache.ts): not in ~/.cache
    env: { DQCTL_CACHE_DIR: join(tmpdir(), 'dqctl-test-parse-cache') },
  },
});
