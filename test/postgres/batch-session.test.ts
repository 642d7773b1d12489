/**
 * The batch session of the PostgreSQL repositories: its keys are session-level advisory locks that
 * exclude units (and other sessions) of any connection, taken without waiting by `tryLock`, let go
 * by `unlock` and `close`; its writes are atomic, one after the other; a pool that cannot lend two
 * connections gives none.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchSession, Repositories } from '../../src/index.js';
import { createPostgresRepositories } from '../../src/postgres/index.js';
import { buildOutcome, buildStoredTransaction, buildTransaction } from '../../src/testing/index.js';
import { postgresDatabase, type TestDatabase } from './fixtures.js';

/** Whether another connection can take `key` now (as a unit's transaction-level lock). */
async function freeElsewhere(pool: pg.Pool, key: string): Promise<boolean> {
  const rows = await pool.query('SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS got', [key]);
  return (rows.rows[0] as { got: boolean }).got;
}

describe('the batch session on PostgreSQL', () => {
  let database: TestDatabase;
  let repositories: Repositories;
  let session: BatchSession | null = null;
  beforeAll(async () => {
    database = await postgresDatabase();
    repositories = await database.fresh();
  });
  afterAll(async () => {
    await session?.close();
    await database?.close();
  });

  it('holds its keys against every other connection until it lets them go, and tries without waiting', async () => {
    const pool = database.client as pg.Pool;
    session = (await repositories.openBatchSession?.()) ?? null;
    if (session === null) throw new Error('no session');
    expect(await session.tryLock(['u:alice', 'u:bob'])).toBe(true);
    expect(await freeElsewhere(pool, 'u:alice')).toBe(false);
    // Held elsewhere: refused at once, and none of the keys asked is held then.
    const other = await pool.connect();
    try {
      await other.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', ['u:carol']);
      expect(await session.tryLock(['u:carol', 'u:dave'])).toBe(false);
      expect(await freeElsewhere(pool, 'u:dave')).toBe(true);
      await other.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', ['u:carol']);
    } finally {
      other.release();
    }
    await session.unlock(['u:alice']);
    expect(await freeElsewhere(pool, 'u:alice')).toBe(true);
    expect(await freeElsewhere(pool, 'u:bob')).toBe(false);
    await session.close();
    expect(await freeElsewhere(pool, 'u:bob')).toBe(true);
    session = null;
  });

  it('writes atomically, one write after the other, and its reads see a write once it resolved', async () => {
    session = (await repositories.openBatchSession?.()) ?? null;
    if (session === null) throw new Error('no session');
    const stored = buildStoredTransaction(buildTransaction('t-session', { origin: 'alice', destination: 'bob' }));
    const outcome = buildOutcome(stored, null);
    const first = session.write((repos) => repos.transactions.saveOutcomes([outcome]));
    // The same creation again: its write fails whole (the transaction exists), the first stays.
    const again = session.write((repos) => repos.transactions.saveOutcomes([outcome]));
    await first;
    await expect(again).rejects.toMatchObject({ code: 'CONCURRENT_UPDATE' });
    expect((await session.reads.transactions.getTransaction('t-session'))?.transaction.transactionId).toBe('t-session');
    await session.close();
    session = null;
  });

  it('is not opened on a pool that lends one connection at most', async () => {
    const url = new URL((database.client as unknown as { options: { connectionString: string } }).options.connectionString);
    const one = new pg.Pool({ connectionString: url.toString(), max: 1 });
    try {
      expect(await createPostgresRepositories({ client: one }).openBatchSession?.()).toBeNull();
    } finally {
      await one.end();
    }
  });
});
