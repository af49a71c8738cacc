import { defineConfig } from 'vitest/config';

/**
 * Guards: tests that check how the code runs rather than what it answers — PostgreSQL's query
 * plans of the hot statements, and the background loops' share of the event loop. They need a
 * PostgreSQL server and a machine that is not saturated, so they form a project of their own, run
 * by the PostgreSQL run (TEST_DATABASE_URL set, as in CI) only.
 */
const GUARDS = ['test/postgres/*-plans.test.ts', 'test/runtime/background-fair-share.test.ts'];
const postgres = Boolean(process.env.TEST_DATABASE_URL);

export default defineConfig({
  test: {
    // Builds web/dist once when it is missing (the web tests read it).
    globalSetup: ['test/web/global-setup.ts'],
    pool: 'forks',
    // PGlite boots in ~1 s per file; a 2-core machine runs two files at a time.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'behaviour',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          // test/postgres/ needs a PostgreSQL server shared by several processes (several
          // instances on one database): it runs in the PostgreSQL run only.
          exclude: ['**/node_modules/**', ...GUARDS, ...(postgres ? [] : ['test/postgres/**'])],
        },
      },
      ...(postgres ? [{ extends: true as const, test: { name: 'guards', include: GUARDS } }] : []),
    ],
  },
});
