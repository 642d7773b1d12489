import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    // Test files of one worker share the modules they import instead of each importing and
    // evaluating src/ again: on 2 cores the run's "import" time falls from ~250 s to ~13 s. Safe
    // because no test relies on a fresh module: spies and stubbed variables are restored after
    // each test, and the engine keeps no module-global state between engines.
    isolate: false,
    // Vitest's default is one worker less than the cores, so a single one on 2 cores; many files
    // wait on child processes, PostgreSQL and timers, so two keep both cores busy (~110 s instead
    // of ~205 s for the whole suite here).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    // Setup hooks open PGlite databases and PostgreSQL schemas, which on a loaded 2-core machine can
    // take longer than vitest's 10 s default.
    hookTimeout: 60_000,
    // FC_SEED=<n> pins every fast-check property of the run to seed <n>.
    setupFiles: ['test/setup/fast-check.ts'],
    // No process may outlive the run (checked when it ends); then a PostgreSQL server for the
    // txmon/postgres tests: TXMON_TEST_POSTGRES_URL, or one started for the run (stopped first).
    globalSetup: ['test/setup/child-processes.ts', 'test/setup/postgres-server.ts'],
    // The JSON report feeds scripts/test-summary.mjs, which prints the closing "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
