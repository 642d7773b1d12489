/**
 * The repository adapters an engine-level test runs on: memory, PGlite (in memory) and a database
 * on the run's PostgreSQL server (`test/postgres/fixtures.ts`). A test file opens each target once
 * (`beforeAll`), takes `fresh()` repositories for every engine it builds, and closes it at the end.
 */
import { createMemoryRepositories, type Repositories } from '../src/index.js';
import { pgliteDatabase, postgresDatabase } from './postgres/fixtures.js';

/** An opened store: `fresh()` empties it and returns repositories on it. */
export interface AdapterDatabase {
  fresh(): Promise<Repositories>;
  close(): Promise<void>;
}

/** A repository adapter to run engine tests on. */
export interface AdapterTarget {
  readonly name: 'memory' | 'PGlite' | 'PostgreSQL';
  open(): Promise<AdapterDatabase>;
  /**
   * Share of a property's runs on this adapter: a database answers each request in milliseconds
   * rather than microseconds, so database targets run a third of the memory runs.
   */
  readonly numRunsScale: number;
}

/** Memory, PGlite and PostgreSQL, in that order. */
export const ADAPTER_TARGETS: readonly AdapterTarget[] = [
  {
    name: 'memory',
    open: async () => ({ fresh: async () => createMemoryRepositories(), close: async () => undefined }),
    numRunsScale: 1,
  },
  { name: 'PGlite', open: pgliteDatabase, numRunsScale: 1 / 3 },
  { name: 'PostgreSQL', open: postgresDatabase, numRunsScale: 1 / 3 },
];

/** `numRuns` scaled for `target` (at least one run). */
export function scaledRuns(numRuns: number, target: AdapterTarget): number {
  return Math.max(1, Math.round(numRuns * target.numRunsScale));
}
