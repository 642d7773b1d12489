import { describe, expect, it } from 'vitest';
import { createMemoryRepositories, MAX_BATCH_RECORDS } from '../../../src/index.js';
import { DAY, T0, errorOf, testEngine, tx } from '../../helpers.js';
import { engineWith, stateOf, workloadTransactions } from './batch-exactness.js';

const R69_DAY = { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { EUR: 1000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } };

describe('createTransactionBatch', () => {
  it('stores the valid records, lists the refused ones with their id and code, and answers PARTIAL_FAILURE', async () => {
    const { engine } = testEngine();
    const good1 = tx({ transactionId: 'b-ok-1' });
    const good2 = tx({ transactionId: 'b-ok-2' });
    const bad = { ...tx({ transactionId: 'b-bad' }), timestamp: 'yesterday' };
    const response = await engine.createTransactionBatch({ batchId: 'batch-1', data: [good1, bad, { nothing: true }, good2] });
    expect(response).toEqual({
      status: 'PARTIAL_FAILURE',
      batchId: 'batch-1',
      successful: 2,
      failed: 2,
      failedRecords: [{ id: 'b-bad', reasonCode: 'VALIDATION_FAILED' }, { reasonCode: 'VALIDATION_FAILED' }],
    });
    expect((await engine.getTransaction('b-ok-2')).transactionId).toBe('b-ok-2');
    expect((await errorOf(() => engine.getTransaction('b-bad'))).code).toBe('TRANSACTION_NOT_FOUND');
  });

  it('answers SUCCESS when every record is stored and FAILURE when none is; a batch without batchId gets one', async () => {
    const { engine } = testEngine();
    const ok = await engine.createTransactionBatch({ data: [tx(), tx()] });
    expect(ok).toMatchObject({ status: 'SUCCESS', successful: 2, failed: 0 });
    expect(ok.batchId).toBe('batch-1');
    expect(ok.failedRecords).toBeUndefined();
    expect(await engine.createTransactionBatch({ data: [{}, 7] })).toMatchObject({ status: 'FAILURE', successful: 0, failed: 2 });
  });

  it('processes the records in timestamp order: a later record sees the earlier ones in its windows, whatever their place in the batch', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(R69_DAY);
    const amount = (n: number) => ({ transactionAmount: n, transactionCurrency: 'EUR' });
    const first = tx({ transactionId: 'first', timestamp: T0, originAmountDetails: amount(600) });
    const second = tx({ transactionId: 'second', timestamp: T0 + 1000, originAmountDetails: amount(600) });
    await engine.createTransactionBatch({ data: [second, first] });
    expect((await engine.getTransaction('first')).hitRules).toEqual([]);
    expect((await engine.getTransaction('second')).hitRules.map((h) => h.ruleId)).toEqual(['R-69']);
  });

  it('is idempotent on batchId: the same body answers the same again and counts nothing twice; another body under it is BATCH_ID_CONFLICT', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(R69_DAY);
    const body = { batchId: 'again', data: [tx({ transactionId: 'a-1' }), { bad: 1 }] };
    const first = await engine.createTransactionBatch(structuredClone(body));
    expect(await engine.createTransactionBatch(structuredClone(body))).toEqual(first);
    expect((await engine.listRuleInstances())[0]?.runCount).toBe(1);
    const other = await errorOf(() => engine.createTransactionBatch({ batchId: 'again', data: [tx({ transactionId: 'a-2' })] }));
    expect(other.code).toBe('BATCH_ID_CONFLICT');
    expect(other.details[0]?.path).toBe('/batchId');
    const otherMode = await errorOf(() => engine.createTransactionBatch(structuredClone(body), { mode: 'IMPORT' }));
    expect(otherMode.code).toBe('BATCH_ID_CONFLICT');
  });

  it('takes a record stored already with the same payload as a replay, and one with another payload as TRANSACTION_ID_CONFLICT', async () => {
    const { engine } = testEngine();
    const stored = tx({ transactionId: 'known' });
    await engine.createTransaction(stored);
    const response = await engine.createTransactionBatch({
      data: [stored, { ...stored, transactionId: 'known-2' }, { ...stored, originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR' } }],
    });
    expect(response).toMatchObject({
      status: 'PARTIAL_FAILURE',
      successful: 2,
      failed: 1,
      failedRecords: [{ id: 'known', reasonCode: 'TRANSACTION_ID_CONFLICT' }],
    });
  });

  it.each([
    { name: 'not an object', body: [1], path: '' },
    { name: 'no data', body: {}, path: '/data' },
    { name: 'empty data', body: { data: [] }, path: '/data' },
    { name: 'data not an array', body: { data: {} }, path: '/data' },
    { name: 'a batchId that is not an id', body: { batchId: '', data: [{}] }, path: '/batchId' },
    { name: 'an unknown field', body: { data: [{}], extra: 1 }, path: '/extra' },
  ])('refuses a malformed body whole: $name (VALIDATION_FAILED at $path)', async ({ body, path }) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createTransactionBatch(body));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details[0]?.path).toBe(path);
  });

  it(`refuses more than MAX_BATCH_RECORDS (${MAX_BATCH_RECORDS}) records with LIMIT_EXCEEDED at /data, storing nothing`, async () => {
    const { engine } = testEngine();
    const record = tx({ transactionId: 'over' });
    const error = await errorOf(() => engine.createTransactionBatch({ data: new Array(MAX_BATCH_RECORDS + 1).fill(record) }));
    expect(error.code).toBe('LIMIT_EXCEEDED');
    expect(error.details[0]?.path).toBe('/data');
    expect((await errorOf(() => engine.getTransaction('over'))).code).toBe('TRANSACTION_NOT_FOUND');
  });

  it('refuses an unknown mode with VALIDATION_FAILED at /mode', async () => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createTransactionBatch({ data: [tx()] }, { mode: 'FAST' as never }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details[0]?.path).toBe('/mode');
  });

  describe('mode IMPORT', () => {
    it('fills the windows without running rules, counting, alerting or scoring; later monitored transactions see the imported history', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance(R69_DAY);
      const amount = { transactionAmount: 900, transactionCurrency: 'EUR' };
      const history = [
        tx({ transactionId: 'h-1', timestamp: T0, originAmountDetails: amount }),
        tx({ transactionId: 'h-2', timestamp: T0 + 1, originAmountDetails: amount }),
      ];
      expect(await engine.createTransactionBatch({ data: history }, { mode: 'IMPORT' })).toMatchObject({ status: 'SUCCESS', successful: 2 });
      expect(await engine.getTransaction('h-2')).toMatchObject({ status: 'ALLOW', hitRules: [], executedRules: [] });
      expect((await engine.listRuleInstances())[0]).toMatchObject({ runCount: 0, hitCount: 0 });
      expect(await engine.listAlerts()).toEqual([]);
      expect((await engine.repositories.users.getUser('alice'))?.craScore ?? null).toBeNull();
      const live = await engine.createTransaction(
        tx({ transactionId: 'live', timestamp: T0 + DAY / 2, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR' } }),
      );
      expect(live.hitRules.map((h) => h.ruleId)).toEqual(['R-69']);
    });
  });

  describe('properties', () => {
    it('the workload sent as one batch stores exactly what it stores sent one by one: results, series entries, counters, alerts, cases, users', async () => {
      const { transactions, instances } = await workloadTransactions(1200);
      const single = await engineWith(createMemoryRepositories(), instances);
      for (const t of transactions) await single.createTransaction(structuredClone(t) as never);
      const batched = await engineWith(createMemoryRepositories(), instances);
      const response = await batched.createTransactionBatch({ data: structuredClone(transactions) });
      expect(response).toMatchObject({ status: 'SUCCESS', successful: transactions.length });
      const expected = await stateOf(single, transactions);
      expect((expected as { alerts: unknown[] }).alerts.length).toBeGreaterThan(0);
      expect(await stateOf(batched, transactions)).toEqual(expected);
    });
  });
});

describe('getTransactionBatch', () => {
  it('pages through the stored records in batch order with their create results; totalCount counts them all', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 50 } } });
    const data = [
      tx({ transactionId: 'p-3', timestamp: T0 + 3 }),
      { bad: true },
      tx({ transactionId: 'p-1', timestamp: T0 + 1 }),
      tx({ transactionId: 'p-2', timestamp: T0 + 2 }),
    ];
    await engine.createTransactionBatch({ batchId: 'pages', data });
    const page1 = await engine.getTransactionBatch('pages', { page: 1, pageSize: 2 });
    expect(page1.totalCount).toBe(3);
    expect(page1.transactions.map((t) => t.transactionId)).toEqual(['p-3', 'p-1']);
    expect(page1.transactions[0]).toMatchObject({ status: 'SUSPEND', hitRules: [expect.objectContaining({ ruleId: 'R-2' })] });
    expect((await engine.getTransactionBatch('pages', { page: 2, pageSize: 2 })).transactions.map((t) => t.transactionId)).toEqual(['p-2']);
    expect((await engine.getTransactionBatch('pages', { page: 3, pageSize: 2 })).transactions).toEqual([]);
  });

  it('answers BATCH_NOT_FOUND for an unknown batch, also one of another kind', async () => {
    const { engine } = testEngine();
    await engine.createTransactionBatch({ batchId: 'tx-only', data: [tx()] });
    expect((await errorOf(() => engine.getTransactionBatch('nope'))).code).toBe('BATCH_NOT_FOUND');
    expect((await errorOf(() => engine.getTransactionEventBatch('tx-only'))).code).toBe('BATCH_NOT_FOUND');
  });

  it.each([
    { name: 'page 0', page: { page: 0 }, path: '/page' },
    { name: 'a fractional page', page: { page: 1.5 }, path: '/page' },
    { name: 'pageSize 0', page: { pageSize: 0 }, path: '/pageSize' },
    { name: 'pageSize past 1,000', page: { pageSize: 1001 }, path: '/pageSize' },
  ])('refuses $name with VALIDATION_FAILED at $path', async ({ page, path }) => {
    const { engine } = testEngine();
    await engine.createTransactionBatch({ batchId: 'p', data: [tx()] });
    const error = await errorOf(() => engine.getTransactionBatch('p', page));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details[0]?.path).toBe(path);
  });
});

describe('createTransactionEventBatch', () => {
  it('applies the events in timestamp order, refuses an event of an unknown transaction alone, and pages the results', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx({ transactionId: 'ev-t', timestamp: T0 }));
    const response = await engine.createTransactionEventBatch({
      batchId: 'events',
      data: [
        { eventId: 'e-2', transactionId: 'ev-t', transactionState: 'SUCCESSFUL', timestamp: T0 + 2 },
        { eventId: 'e-x', transactionId: 'unknown', transactionState: 'SENT', timestamp: T0 + 1 },
        { eventId: 'e-1', transactionId: 'ev-t', transactionState: 'SENT', timestamp: T0 + 1 },
      ],
    });
    expect(response).toMatchObject({
      status: 'PARTIAL_FAILURE',
      successful: 2,
      failed: 1,
      failedRecords: [{ id: 'e-x', reasonCode: 'TRANSACTION_NOT_FOUND' }],
    });
    expect((await engine.getTransaction('ev-t')).transactionState).toBe('SUCCESSFUL');
    const results = await engine.getTransactionEventBatch('events');
    expect(results.totalCount).toBe(2);
    expect(results.transactionEvents.map((e) => [e.eventId, e.transactionId, e.transactionState, e.timestamp, e.status])).toEqual([
      ['e-2', 'ev-t', 'SUCCESSFUL', T0 + 2, 'ALLOW'],
      ['e-1', 'ev-t', 'SENT', T0 + 1, 'ALLOW'],
    ]);
  });
});

describe('createUserBatch', () => {
  it('creates each user as createUser does, refuses an invalid one alone, and pages the users by type', async () => {
    const { engine } = testEngine();
    const response = await engine.createUserBatch(
      { batchId: 'users', data: [{ userId: 'u-1', createdTimestamp: T0 }, { createdTimestamp: T0 }, { userId: 'u-2', createdTimestamp: T0 + 1 }] },
      { type: 'CONSUMER' },
    );
    expect(response).toMatchObject({ status: 'PARTIAL_FAILURE', successful: 2, failed: 1, failedRecords: [{ reasonCode: 'VALIDATION_FAILED' }] });
    const users = await engine.getUserBatch('users', { type: 'CONSUMER' });
    expect(users.totalCount).toBe(2);
    expect('consumerUsers' in users ? users.consumerUsers.map((u) => u.userId) : []).toEqual(['u-1', 'u-2']);
    expect((await errorOf(() => engine.getUserBatch('users', { type: 'BUSINESS' }))).code).toBe('BATCH_NOT_FOUND');
  });
});

describe('createUserEventBatch', () => {
  const event = (eventId: string | undefined, timestamp: number, state: string) => ({
    userId: 'ue-user',
    ...(eventId === undefined ? {} : { eventId }),
    timestamp,
    updatedConsumerUserAttributes: { userStateDetails: { state } },
  });

  it('applies the events in timestamp order, refuses one without eventId, and pages the results in batch order', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'ue-user', createdTimestamp: T0 }, { type: 'CONSUMER' });
    const response = await engine.createUserEventBatch({
      batchId: 'ue',
      data: [event('ue-2', T0 + 2 * DAY, 'TERMINATED'), event(undefined, T0 + 3 * DAY, 'ACTIVE'), event('ue-1', T0 + DAY, 'DORMANT')],
    });
    expect(response).toMatchObject({
      status: 'PARTIAL_FAILURE',
      successful: 2,
      failed: 1,
      failedRecords: [{ id: 'ue-user', reasonCode: 'VALIDATION_FAILED' }],
    });
    expect((await engine.getUser('ue-user')).userStateDetails).toMatchObject({ state: 'TERMINATED' });
    const page = await engine.getUserEventBatch('ue', { page: 1, pageSize: 1 });
    expect(page).toMatchObject({ totalCount: 2, consumerUserEvents: [{ eventId: 'ue-2', userId: 'ue-user', executedRules: [] }] });
    expect('hitRules' in ((page as { consumerUserEvents: object[] }).consumerUserEvents[0] ?? {})).toBe(false);
  });

  it('is idempotent on batchId and on eventId: the same batch again changes nothing, another body under it is BATCH_ID_CONFLICT', async () => {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'ue-user', createdTimestamp: T0 }, { type: 'CONSUMER' });
    const body = { batchId: 'ue-again', data: [event('ue-a', T0 + DAY, 'DORMANT')] };
    const first = await engine.createUserEventBatch(structuredClone(body));
    expect(await engine.createUserEventBatch(structuredClone(body))).toEqual(first);
    // The same event in another batch is a replay of it, not a second application.
    expect(await engine.createUserEventBatch({ batchId: 'ue-other', data: [event('ue-a', T0 + DAY, 'DORMANT')] })).toMatchObject({ status: 'SUCCESS' });
    const conflict = await errorOf(() => engine.createUserEventBatch({ batchId: 'ue-again', data: [event('ue-b', T0 + DAY, 'ACTIVE')] }));
    expect(conflict.code).toBe('BATCH_ID_CONFLICT');
    const otherType = await errorOf(() => engine.getUserEventBatch('ue-again', { type: 'BUSINESS' }));
    expect(otherType.code).toBe('BATCH_NOT_FOUND');
  });
});
