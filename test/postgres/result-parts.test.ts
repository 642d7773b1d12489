/**
 * Results stored compactly on PGlite and PostgreSQL (src/postgres/result-parts.ts): the rule results
 * the engine shares across transactions are stored once and named in each stored result; every read
 * — by the writing repositories or by another set that never saw them — gives back exactly the
 * result the engine answered; a part whose write rolled back is stored again by the next write.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresRepositories } from '../../src/postgres/index.js';
import type { PostgresClient } from '../../src/postgres/index.js';
import { engineWith, workloadTransactions } from '../engine/services/batch-exactness.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

/** The stored create results' texts, by transaction id. */
async function storedTexts(client: PostgresClient): Promise<Map<string, string>> {
  const rows = (await client.query('SELECT transaction_id, create_result::text AS result FROM txmon_transactions')).rows as {
    transaction_id: string;
    result: string;
  }[];
  return new Map(rows.map((r) => [r.transaction_id, r.result]));
}

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
])('results on %s', (_name, open: () => Promise<TestDatabase>) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('store each shared rule result once, and read back exactly what the engine answered, also through repositories that never saw them', async () => {
    const { transactions, instances } = await workloadTransactions(300);
    const engine = await engineWith(await database.fresh(), instances);
    const answered = new Map<string, unknown>();
    for (const t of transactions.slice(0, 150)) {
      const result = await engine.createTransaction(structuredClone(t) as never);
      answered.set(result.transactionId, result);
    }
    const batch = transactions.slice(150);
    await engine.createTransactionBatch({ data: structuredClone(batch) });
    const texts = await storedTexts(database.client);
    const named = [...texts.values()].filter((text) => text.includes('{"$r":"'));
    expect(named.length).toBe(texts.size);
    const parts = (await database.client.query('SELECT count(*)::int AS n FROM txmon_result_parts')).rows[0] as { n: number };
    // One part per instance not hit (at each level): far fewer than the rule results they stand for.
    expect(parts.n).toBeGreaterThan(0);
    expect(parts.n).toBeLessThanOrEqual(instances.length * 2);
    // Another set of repositories on the same database reads them back from the table.
    const reader = await engineWith(createPostgresRepositories({ client: database.client }), []);
    for (const [id, result] of answered) {
      const read = await reader.getTransaction(id);
      expect({ transactionId: id, executedRules: read.executedRules, hitRules: read.hitRules, status: read.status }).toEqual({
        transactionId: id,
        executedRules: (result as { executedRules: unknown }).executedRules,
        hitRules: (result as { hitRules: unknown }).hitRules,
        status: (result as { status: unknown }).status,
      });
    }
    for (const t of batch) {
      const id = t.transactionId as string;
      expect((await reader.getTransaction(id)).executedRules).toEqual((await engine.getTransaction(id)).executedRules);
    }
    // A replay answers the stored result, parts put back.
    const replay = await reader.createTransaction(structuredClone(transactions[0]) as never);
    expect(replay.executedRules).toEqual((answered.get(replay.transactionId) as { executedRules: unknown }).executedRules);
  }, 120_000);

  it('stores a part again after the write that first named it rolled back', async () => {
    const { transactions, instances } = await workloadTransactions(2);
    const repositories = await database.fresh();
    const engine = await engineWith(repositories, instances);
    // The first creation's unit fails after its work: nothing of it is stored, its parts included.
    const broken = await engineWith(
      {
        ...repositories,
        runExclusive: (keys, work, options) =>
          (repositories.runExclusive as NonNullable<typeof repositories.runExclusive>)(
            keys,
            async (inner) => {
              await work(inner);
              throw new Error('the unit fails after its write');
            },
            options,
          ),
      },
      [],
    );
    await expect(broken.createTransaction(structuredClone(transactions[0]) as never)).rejects.toThrow();
    expect(((await database.client.query('SELECT count(*)::int AS n FROM txmon_result_parts')).rows[0] as { n: number }).n).toBe(0);
    const result = await engine.createTransaction(structuredClone(transactions[0]) as never);
    const reader = await engineWith(createPostgresRepositories({ client: database.client }), []);
    expect((await reader.getTransaction(result.transactionId)).executedRules).toEqual(result.executedRules);
  }, 60_000);
});
