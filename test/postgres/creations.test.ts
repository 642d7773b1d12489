/**
 * `txmon_save_creations`, the set-based write of a batch chunk's new transactions, on PGlite and
 * PostgreSQL: a body sent as the state added to its request is stored as the request's text with
 * that state last; series values sent once and named by position are stored on every entry naming
 * them; and documents in the earlier form (bodies as JSON, values inline) are stored as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresClient } from '../../src/postgres/index.js';
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
