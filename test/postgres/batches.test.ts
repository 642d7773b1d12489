/**
 * Batches on PostgreSQL: the batch path (chunks of transactions, each one unit of the store) stores
 * exactly what the same transactions store sent one by one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineWith, stateOf, workloadTransactions } from '../engine/services/batch-exactness.js';
import { postgresDatabase, type TestDatabase } from './fixtures.js';

describe('createTransactionBatch on PostgreSQL', () => {
  let single: TestDatabase;
  let batched: TestDatabase;
  beforeAll(async () => {
    single = await postgresDatabase();
    batched = await postgresDatabase();
  });
  afterAll(async () => {
    await single?.close();
    await batched?.close();
  });

  it('the workload sent as one batch stores exactly what it stores sent one by one: results, series entries, counters, alerts, cases, users', async () => {
    const { transactions, instances } = await workloadTransactions(600);
    const one = await engineWith(await single.fresh(), instances);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const many = await engineWith(await batched.fresh(), instances);
    const response = await many.createTransactionBatch({ batchId: 'exact', data: structuredClone(transactions) });
    expect(response).toMatchObject({ status: 'SUCCESS', successful: transactions.length });
    const expected = await stateOf(one, transactions);
    expect((expected as { alerts: unknown[] }).alerts.length).toBeGreaterThan(0);
    expect(await stateOf(many, transactions)).toEqual(expected);
    expect(await many.createTransactionBatch({ batchId: 'exact', data: structuredClone(transactions) })).toEqual(response);
    expect((await many.getTransactionBatch('exact', { pageSize: 1000 })).transactions.map((t) => t.transactionId)).toEqual(
      transactions.map((t) => t.transactionId),
    );
  }, 120_000);
});
