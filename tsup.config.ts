import { defineConfig } from 'tsup';

// `dist/` is emptied by the `build` script first: two configurations run here, and a `clean` in
// one could delete the other's output.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', internals: 'src/internals.ts', testing: 'src/testing/index.ts', http: 'src/http/index.ts', postgres: 'src/postgres/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    clean: false,
    sourcemap: true,
    target: 'node20',
    splitting: false,
    treeshake: true,
    external: ['fast-check', 'pg', '@electric-sql/pglite'],
  },
  {
    // The `txmon` command (package `bin`).
    entry: { cli: 'src/cli/main.ts' },
    format: ['esm'],
    dts: false,
    clean: false,
    sourcemap: true,
    target: 'node20',
    splitting: false,
    banner: { js: '#!/usr/bin/env node' },
    external: ['pg', '@electric-sql/pglite'],
  },
]);
