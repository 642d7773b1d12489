import { defineConfig, type Options } from 'tsup';

const library: Options = {
  entry: {
    index: 'src/index.ts',
    internals: 'src/internals.ts',
    testing: 'src/testing/index.ts',
    http: 'src/http/index.ts',
    postgres: 'src/postgres/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: false,
  sourcemap: true,
  target: 'node20',
  splitting: false,
  treeshake: true,
  external: ['fast-check', 'pg', '@electric-sql/pglite'],
};

const cli: Options = {
  // The `txmon` command (package `bin`). Split: each command's module (serve, prune) is a chunk
  // that `dist/cli.js` imports only when the command runs, so `txmon --help` loads no engine.
  entry: { cli: 'src/cli/main.ts' },
  format: ['esm'],
  dts: false,
  clean: false,
  sourcemap: true,
  target: 'node20',
  splitting: true,
  banner: { js: '#!/usr/bin/env node' },
  external: ['pg', '@electric-sql/pglite'],
};

// `dist/` is emptied by the `build` script first: two configurations run here, and a `clean` in
// one could delete the other's output. Every build builds all of dist/ (the library entries and the
// command), so whatever built it, the package can be installed from the clone.
export default defineConfig([library, cli]);
