/**
 * A unit of work on a `pg` Pool: its first and last round trips are batches of prepared statements
 * (BEGIN with the first statement; the deferred statements with COMMIT). These pin what a batch
 * does with parameters, rows, errors and the statements it prepares on a connection.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, type Database } from '../../src/postgres/client.js';
import { POSTGRES_URL } from './fixtures.js';

let admin: pg.Client;
let pool: pg.Pool;
let db: Database;
const name = `txmon_units_${process.pid}_${Math.floor(Math.random() * 1e9)}`;

beforeAll(async () => {
  admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  // One connection: every unit below runs on the connection the ones before it used.
  pool = new pg.Pool({ connectionString: url.toString(), max: 1 });
  pool.on('error', () => undefined);
  db = databaseOf(pool);
  await db.query('CREATE TABLE unit_rows (id text PRIMARY KEY, n integer NOT NULL)');
});

afterAll(async () => {
  await pool.end();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
});

const count = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM unit_rows'))[0]?.n);

describe('a unit on a pg Pool', () => {
  it('passes text, array, number and null parameters as values (quotes, backslashes and braces included) and parses the rows by type', async () => {
    const awkward = ['a"b', 'c\\d', "e'f", '{g,h}', 'NULL', ''];
    const rows = await db.unit(
      {
        text: 'SELECT $1::text[] AS a, $2::text AS t, $3::integer AS n, $4::text AS z, $5::json AS j',
        params: [[...awkward, null], "x'y\\z", 42, null, '{"k":[1,2]}'],
      },
      async (_tx, first) => first,
    );
    expect(rows).toEqual([{ a: [...awkward, null], t: "x'y\\z", n: 42, z: null, j: { k: [1, 2] } }]);
  });

  it('commits the deferred statements with COMMIT, and rolls the whole unit back when one fails', async () => {
    await db.unit({ text: 'SELECT 1 AS one', params: [] }, async (tx) => {
      await tx.query('INSERT INTO unit_rows (id, n) VALUES ($1, $2)', ['a', 1]);
      tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['b', 2] });
    });
    expect(await count()).toBe(2);
    await expect(
      db.unit({ text: 'SELECT 1 AS one', params: [] }, async (tx) => {
        await tx.query('INSERT INTO unit_rows (id, n) VALUES ($1, $2)', ['c', 3]);
        // A duplicate key: the batch fails, COMMIT is skipped, the unit is rolled back.
        tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['a', 4] });
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(await count()).toBe(2);
  });

  it('leaves no timer behind on a pool with query_timeout (node-postgres times each batch until it is done)', async () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const timed = new pg.Pool({ connectionString: url.toString(), max: 1, query_timeout: 60_000 });
    timed.on('error', () => undefined);
    const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    try {
      const timedDb = databaseOf(timed);
      await timedDb.unit({ text: 'SELECT 1 AS one', params: [] }, async () => undefined);
      const before = timers();
      for (let i = 0; i < 20; i++) {
        await timedDb.unit({ text: 'SELECT $1::integer AS i', params: [i] }, async (tx) => {
          tx.defer({ text: 'SELECT $1::integer AS j', params: [i] });
        });
      }
      await expect(timedDb.unit({ text: 'SELECT 10 / $1::integer AS q', params: [0] }, async () => undefined)).rejects.toMatchObject({ code: '22012' });
      // Two batches a unit: 42 timers would be left if they were not cleared.
      expect(timers() - before).toBeLessThan(5);
    } finally {
      await timed.end();
    }
  });

  it('runs on a pool in node-postgres pipeline mode (no custom queries there: the statements go as one simple query)', async () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const pipelined = new pg.Pool({ connectionString: url.toString(), max: 1, pipeline: true } as pg.PoolConfig);
    pipelined.on('error', () => undefined);
    try {
      const rows = await databaseOf(pipelined).unit({ text: 'SELECT $1::text AS t', params: ["a'b"] }, async (tx, first) => {
        tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['p', 9] });
        return first;
      });
      expect(rows).toEqual([{ t: "a'b" }]);
      expect(await count()).toBe(3);
    } finally {
      await pipelined.end();
    }
  });

  it('runs again on the same connection after its first statement failed in the batch that prepared it', async () => {
    const first = { text: 'SELECT 10 / $1::integer AS q', params: [0] };
    await expect(db.unit(first, async () => undefined)).rejects.toMatchObject({ code: '22012' });
    const rows = await db.unit({ ...first, params: [5] }, async (_tx, r) => r);
    expect(rows).toEqual([{ q: 2 }]);
    // And once more, with the statement prepared.
    expect(await db.unit({ ...first, params: [2] }, async (_tx, r) => r)).toEqual([{ q: 5 }]);
  });

  it('sends the deferred statements with its next statement, and a session unit without a first statement sends BEGIN with its first one', async () => {
    const url = new URL(POSTGRES_URL);
    url.pathname = `/${name}`;
    const counted = new pg.Pool({ connectionString: url.toString(), max: 2 });
    counted.on('error', () => undefined);
    let trips = 0;
    counted.on('connect', (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args) => {
        trips += 1;
        return query(...args);
      };
    });
    const sessions = databaseOf(counted);
    const session = await sessions.session?.();
    try {
      if (!session) throw new Error('no session');
      const before = await count();
      trips = 0;
      const seen = await session.unit(null, async (tx) => {
        tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['s1', 7] });
        const rows = await tx.query<{ n: number }>('SELECT n FROM unit_rows WHERE id = $1', ['s1']);
        tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['s2', 8] });
        return rows;
      });
      // BEGIN, the deferred insert and the select in one round trip; the second insert with COMMIT.
      expect(seen).toEqual([{ n: 7 }]);
      expect(trips).toBe(2);
      // A statement without rows answers none, whatever statement travelled before it.
      const after = await session.unit(null, async (tx) => {
        tx.defer({ text: 'SELECT n FROM unit_rows WHERE id = $1', params: ['s1'] });
        return tx.query("UPDATE unit_rows SET n = n WHERE id = 's1'");
      });
      expect(after).toEqual([]);
      expect(await count()).toBe(before + 2);
      // A unit that fails in its first round trip is rolled back whole.
      await expect(
        session.unit(null, async (tx) => {
          tx.defer({ text: 'INSERT INTO unit_rows (id, n) VALUES ($1, $2)', params: ['s3', 9] });
          await tx.query('INSERT INTO unit_rows (id, n) VALUES ($1, $2)', ['s1', 10]);
        }),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await count()).toBe(before + 2);
      await db.execute("DELETE FROM unit_rows WHERE id LIKE 's%'");
    } finally {
      await session?.close(false);
      await counted.end();
    }
  });
});
