/**
 * The shared repository conformance suite and the model-based check, unchanged, on PGlite and on
 * the run's PostgreSQL server.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { checkRepositoriesAgainstModel, describeRepositoryConformance } from '../../src/testing/index.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

const targets: { name: string; open: () => Promise<TestDatabase> }[] = [
  { name: 'PGlite', open: pgliteDatabase },
  { name: 'PostgreSQL', open: postgresDatabase },
];

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
