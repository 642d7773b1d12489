import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    testTimeout: 60_000,
    // FC_SEED=<n> pins every fast-check property of the run to seed <n>.
    setupFiles: ['test/setup/fast-check.ts'],
    // A PostgreSQL server for the txmon/postgres tests: TXMON_TEST_POSTGRES_URL, or one started for the run.
    globalSetup: ['test/setup/postgres-server.ts'],
    // The JSON report feeds scripts/test-summary.mjs, which prints the closing "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
