import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'threads',
    testTimeout: 60_000,
    // The JSON report feeds scripts/test-summary.mjs, which prints the closing "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test-results/vitest.json' }]],
  },
});
