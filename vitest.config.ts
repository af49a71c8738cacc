import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // test/postgres/ needs a PostgreSQL server shared by several processes (several instances on
    // one database): it runs in the PostgreSQL run (TEST_DATABASE_URL set, as in CI), not in the
    // embedded-database run, which needs nothing but Node.
    exclude: ['**/node_modules/**', ...(process.env.TEST_DATABASE_URL ? [] : ['test/postgres/**'])],
    // Builds web/dist once when it is missing (the web tests read it).
    globalSetup: ['test/web/global-setup.ts'],
    pool: 'forks',
    // PGlite boots in ~1 s per file; a 2-core machine runs two files at a time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
