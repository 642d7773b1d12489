/** Rules not evaluated on PGlite, the SQL adapter's store (the suite: test/engine/not-evaluated-suite.ts). */
import { afterAll, beforeAll } from 'vitest';
import type { Repositories } from '../../src/index.js';
import { describeNotEvaluated } from '../engine/not-evaluated-suite.js';
import { pgliteDatabase, type TestDatabase } from './fixtures.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await pgliteDatabase();
});
afterAll(async () => {
  await db?.close();
});

describeNotEvaluated('PGlite', (): Promise<Repositories> => db.fresh());
