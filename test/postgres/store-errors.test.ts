/**
 * How `txmon/postgres` reports what its client throws: a store fault as `STORE_UNAVAILABLE` or
 * `STORE_TIMEOUT`, a lost race as `CONCURRENT_UPDATE`, anything else as it is — and, on a real
 * server, a backend terminated while its connection is checked out fails only the unit using it.
 */
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { storeErrorOf } from '../../src/postgres/client.js';
import { createPostgresRepositories, migrate } from '../../src/postgres/index.js';
import { createEngine, isTxmonError } from '../../src/index.js';
import { T0, tx } from '../helpers.js';
import { POSTGRES_URL } from './fixtures.js';

const sqlError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('storeErrorOf', () => {
  const rows = [
    { name: 'a terminated backend (57P01)', error: sqlError('57P01'), code: 'STORE_UNAVAILABLE' },
    { name: 'a server starting or shutting down (57P03)', error: sqlError('57P03'), code: 'STORE_UNAVAILABLE' },
    { name: 'a connection failure (08006)', error: sqlError('08006'), code: 'STORE_UNAVAILABLE' },
    { name: 'too many connections (53300)', error: sqlError('53300'), code: 'STORE_UNAVAILABLE' },
    { name: 'a statement past statement_timeout (57014)', error: sqlError('57014'), code: 'STORE_TIMEOUT' },
    { name: 'a lock past lock_timeout (55P03)', error: sqlError('55P03'), code: 'STORE_TIMEOUT' },
    { name: 'a session past idle_in_transaction_session_timeout (25P03)', error: sqlError('25P03'), code: 'STORE_TIMEOUT' },
    { name: 'a refused connection', error: sqlError('ECONNREFUSED'), code: 'STORE_UNAVAILABLE' },
    { name: 'a reset connection', error: sqlError('ECONNRESET'), code: 'STORE_UNAVAILABLE' },
    { name: "node-postgres' lost connection", error: new Error('Connection terminated unexpectedly'), code: 'STORE_UNAVAILABLE' },
    { name: "node-postgres' pool wait past connectionTimeoutMillis", error: new Error('timeout exceeded when trying to connect'), code: 'STORE_TIMEOUT' },
    { name: "node-postgres' query_timeout", error: new Error('Query read timeout'), code: 'STORE_TIMEOUT' },
    { name: 'a deadlock (40P01)', error: sqlError('40P01'), code: 'CONCURRENT_UPDATE' },
    { name: 'a serialization failure (40001)', error: sqlError('40001'), code: 'CONCURRENT_UPDATE' },
  ];
  it.each(rows)('$name → $code, the cause kept', ({ error, code }) => {
    const reported = storeErrorOf(error);
    expect(isTxmonError(reported) && reported.code).toBe(code);
    expect((reported as Error).cause).toBe(error);
  });

  it.each([
    { name: 'a unique violation (23505)', error: sqlError('23505') },
    { name: 'a syntax error (42601)', error: sqlError('42601') },
    { name: 'a TypeError', error: new TypeError('x is not a function') },
  ])('leaves $name as it is (a bug, not a fault of the store)', ({ error }) => {
    expect(storeErrorOf(error)).toBe(error);
  });
});

describe('a backend terminated while its connection is checked out', () => {
  const pools: pg.Pool[] = [];
  afterAll(async () => {
    for (const pool of pools) await pool.end();
  });

  it('fails the unit using it with STORE_UNAVAILABLE, does not end the process, and the pool serves the next unit', async () => {
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
    pools.push(pool);
    const schema = `txmon_terminated_${process.pid}`;
    await migrate(pool, { schema });
    const repositories = createPostgresRepositories({ client: pool, schema });
    const engine = createEngine({ repositories });
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    try {
      // The unit holds its connection while the rule instance's read waits on a lock held here.
      await admin.query('BEGIN');
      await admin.query(`LOCK TABLE "${schema}".txmon_transactions IN ACCESS EXCLUSIVE MODE`);
      // Settled into a value at once: it may fail before the termination below has answered.
      const pending = engine.createTransaction(tx({ transactionId: 'term-1', timestamp: T0 })).then(
        () => null,
        (error: unknown) => error,
      );
      let victim: number | undefined;
      for (let i = 0; i < 200 && victim === undefined; i++) {
        const rows = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database() AND pid <> pg_backend_pid()",
        );
        victim = rows.rows[0]?.pid;
        if (victim === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(victim).toBeDefined();
      await admin.query('SELECT pg_terminate_backend($1)', [victim]);
      expect(await pending).toMatchObject({ code: 'STORE_UNAVAILABLE' });
      await admin.query('ROLLBACK');
      expect(await engine.createTransaction(tx({ transactionId: 'term-1', timestamp: T0 }))).toMatchObject({ status: 'ALLOW' });
    } finally {
      await admin.query('ROLLBACK').catch(() => undefined);
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    }
  });
});
