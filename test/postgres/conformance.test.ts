/**
 * The shared repository conformance suite and the model-based check, unchanged, on PGlite and —
 * when `TXMON_TEST_POSTGRES_URL` names a server (`.ci/run` starts one) — on PostgreSQL.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkRepositoriesAgainstModel, describeRepositoryConformance } from '../../src/testing/index.js';
import { POSTGRES_URL, pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

const targets: { name: string; open: () => Promise<TestDatabase> }[] = [{ name: 'PGlite', open: pgliteDatabase }];
if (POSTGRES_URL !== undefined) targets.push({ name: 'PostgreSQL', open: postgresDatabase });

for (const target of targets) {
  describe(`createPostgresRepositories on ${target.name}`, () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await target.open();
    });
    afterAll(async () => {
      await db.close();
    });

    describeRepositoryConformance(target.name, () => db.fresh(), { describe, it });

    describe('properties', () => {
      it(`createPostgresRepositories on ${target.name} agrees with the model after every step of random operation sequences`, () =>
        checkRepositoriesAgainstModel(() => db.fresh(), { numRuns: 25 }));
    });
  });
}
