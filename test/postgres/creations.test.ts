/**
 * `txmon_save_creations`, the set-based write of a batch chunk's new transactions, on PGlite and
 * PostgreSQL: a body sent as the state added to its request is stored as the request's text with
 * that state last; series values sent once and named by position are stored on every entry naming
 * them; and documents in the earlier form (bodies as JSON, values inline) are stored as before.
 * A new transaction's body that is its request with the state defaulted is left out of its row and
 * reads back whole, through every read.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresClient } from '../../src/postgres/index.js';
import { unitReadsOf, type UnitStartRow } from '../../src/postgres/unit.js';
import { engineWith } from '../engine/services/batch-exactness.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

const REQUEST = '{"transactionId":"t-1","timestamp":1738357200741,"type":"TRANSFER","originUserId":"alice"}';
const OTHER = '{"transactionId":"t-2","timestamp":1738357200742,"type":"DEPOSIT","transactionState":"SUCCESSFUL"}';

/** A chunk document with `entries` as its new series entries and nothing else to write. */
const docOf = (entries: unknown[][], vals?: unknown[]) =>
  JSON.stringify({ remove: [], add: [], new: entries, ...(vals === undefined ? {} : { vals }), counters: [], alerts: null, seen: [], users: [] });

async function save(client: PostgresClient, doc: string, ids: string[], bodies: string[], requests: string[]): Promise<void> {
  const array = (texts: string[]) => `[${texts.join(',')}]`;
  const results = array(ids.map(() => '{"status":"ALLOW"}'));
  await client.query('SELECT txmon_save_creations($1::jsonb, $2::json, $3::json, $4::json, $5::json, $6::json)', [
    doc,
    JSON.stringify(ids),
    array(bodies),
    array(requests),
    results,
    array(ids.map(() => 'null')),
  ]);
}

async function bodies(client: PostgresClient): Promise<Record<string, string | null>> {
  const rows = (await client.query('SELECT transaction_id AS id, body::text AS body FROM txmon_transactions ORDER BY 1')).rows as {
    id: string;
    body: string | null;
  }[];
  return Object.fromEntries(rows.map((r) => [r.id, r.body]));
}

async function entryValues(client: PostgresClient): Promise<Record<string, unknown>> {
  const rows = (await client.query("SELECT series || '/' || key AS at, vals FROM txmon_series_entries ORDER BY 1")).rows as { at: string; vals: unknown }[];
  return Object.fromEntries(rows.map((r) => [r.at, r.vals]));
}

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
])('txmon_save_creations on %s', (_name, open: () => Promise<TestDatabase>) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('stores a body sent as its state as the request text with the state last, and series values named by position', async () => {
    await database.fresh();
    const shared = { type: 'TRANSFER', country: 'DE' };
    const entries = [
      ['user-sending', 'alice', 't-1', 1738357200741, '100', 0],
      ['user-all', 'alice', 't-1', 1738357200741, '100', 0],
      ['user-pair', '["alice","bob"]', 't-1', 1738357200741, '100', 1],
      ['ip', '10.0.0.1', 't-1', 1738357200741, '100', null],
    ];
    await save(database.client, docOf(entries, [shared, { counterparty: 'bob' }]), ['t-1', 't-2'], ['"CREATED"', 'null'], [REQUEST, OTHER]);
    expect(await bodies(database.client)).toEqual({ 't-1': `${REQUEST.slice(0, -1)},"transactionState":"CREATED"}`, 't-2': null });
    expect(await entryValues(database.client)).toEqual({
      'ip/10.0.0.1': null,
      'user-all/alice': shared,
      'user-pair/["alice","bob"]': { counterparty: 'bob' },
      'user-sending/alice': shared,
    });
  });

  it('stores documents of the earlier form as they are: bodies as JSON, values inline', async () => {
    await database.fresh();
    const body = `${OTHER.slice(0, -1)},"reference":"r"}`;
    await save(database.client, docOf([['user-all', 'carol', 't-2', 1738357200742, null, { type: 'DEPOSIT' }]]), ['t-2'], [body], [OTHER]);
    expect(await bodies(database.client)).toEqual({ 't-2': body });
    expect(await entryValues(database.client)).toEqual({ 'user-all/carol': { type: 'DEPOSIT' } });
  });
});

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
])('a new transaction stored without its initial body on %s', (_name, open: () => Promise<TestDatabase>) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await open();
  });
  afterAll(async () => {
    await database?.close();
  });

  const request = (id: string, state?: 'SUCCESSFUL') => ({
    transactionId: id,
    type: 'TRANSFER',
    timestamp: 1738357200000,
    originUserId: 'alice',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(state === undefined ? {} : { transactionState: state }),
  });

  it('leaves the body out when it is the request with the state defaulted, and every read puts it back with the state last', async () => {
    const engine = await engineWith(await database.fresh(), []);
    await engine.createTransaction(request('single'));
    await engine.createTransactionBatch({ data: [request('batched'), request('stated', 'SUCCESSFUL')] });
    expect(await bodies(database.client)).toEqual({ batched: null, single: null, stated: null });
    const expected = (id: string) => ({ ...request(id), transactionState: 'CREATED' });
    for (const id of ['single', 'batched']) {
      const read = await engine.repositories.transactions.getTransaction(id);
      expect(read?.transaction).toEqual(expected(id));
      expect(Object.keys(read?.transaction ?? {}).at(-1)).toBe('transactionState');
      expect(read?.request).toEqual(request(id));
    }
    expect((await engine.repositories.transactions.getTransactions(['batched', 'stated'])).map((t) => t?.transaction)).toEqual([
      expected('batched'),
      request('stated', 'SUCCESSFUL'),
    ]);
    const scanned = [];
    for await (const t of engine.repositories.transactions.scanTransactions()) scanned.push(t);
    expect(scanned).toEqual([expected('single'), expected('batched'), request('stated', 'SUCCESSFUL')]);
    // An event reads the stored transaction in its unit (txmon_unit_start) and moves it on from CREATED.
    const event = await engine.createTransactionEvent({ transactionId: 'batched', eventId: 'e-1', timestamp: 1738357260000, transactionState: 'SUCCESSFUL' });
    expect(event.transaction).toMatchObject({ transactionId: 'batched', transactionState: 'SUCCESSFUL' });
  });

  it('gives a body its initial state only where the row left it out before any event, on every read', async () => {
    const repositories = await database.fresh();
    const stateless = { ...request('stateless'), reference: 'r' };
    const rows: [string, unknown, unknown][] = [
      ['initial', null, request('initial')],
      ['stateless', stateless, request('stateless')],
      ['stated', null, request('stated', 'SUCCESSFUL')],
    ];
    for (const [id, body, req] of rows) {
      await database.client.query(
        `INSERT INTO txmon_transactions (transaction_id, version, event_count, body, request, create_result, latest_result)
         VALUES ($1, 1, 0, $2::json, $3::json, '{"executedRules":[],"hitRules":[],"status":"ALLOW"}', NULL)`,
        [id, body === null ? null : JSON.stringify(body), JSON.stringify(req)],
      );
    }
    const expected = [{ ...request('initial'), transactionState: 'CREATED' }, stateless, request('stated', 'SUCCESSFUL')];
    expect((await repositories.transactions.getTransactions(['initial', 'stateless', 'stated'])).map((t) => t?.transaction)).toEqual(expected);
    const scanned = [];
    for await (const t of repositories.transactions.scanTransactions()) scanned.push(t);
    expect(scanned).toEqual(expected);
    for (const [i, id] of ['initial', 'stateless', 'stated'].entries()) {
      const options = { prefetch: { transactionId: id } };
      const started = (
        await database.client.query('SELECT * FROM txmon_unit_start($1::text[], $2::text[], $3::text, $4::text, $5::text[])', [[], [], id, null, []])
      ).rows as UnitStartRow[];
      expect(unitReadsOf(started, options).transaction?.value?.transaction).toEqual(expected[i]);
    }
  });
});
