/**
 * Case grouping COUNTERPARTIES on PostgreSQL: a case shared by several users is changed by outcomes
 * of different users, and `txmon_outcome_reads` locks each case it reads, so two such outcomes
 * decide one after the other. Without that lock both would read the case's old priority and the
 * one committed last would overwrite the other's.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repositories } from '../../src/index.js';
import { buildAlertHit, buildOutcome, buildStoredTransaction, buildTransaction } from '../../src/testing/fixtures.js';
import { postgresDatabase, type TestDatabase } from './fixtures.js';

let db: TestDatabase;
let repos: Repositories;

beforeAll(async () => {
  db = await postgresDatabase();
  repos = await db.fresh();
});

afterAll(async () => {
  await db.close();
});

/** Saves one outcome of transaction `id` with the given alert hits. */
function save(id: string, hits: ReturnType<typeof buildAlertHit>[]) {
  const stored = buildStoredTransaction(buildTransaction(id, { origin: 'alice', destination: 'bob' }));
  return repos.transactions.saveOutcome(buildOutcome(stored, null, { alertHits: hits }));
}

/**
 * Lock requests of this database's sessions that are waiting, asked on a connection of its own
 * (inside a transaction `pg_stat_activity` keeps the snapshot of its first read).
 */
async function waitingLocks(pool: pg.Pool): Promise<number> {
  const rows = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.datname = current_database()`,
  );
  return Number(rows.rows[0]?.n);
}

/** Polls until `n` lock requests of this database wait (bounded: 1,000 polls). */
async function waitForWaiting(pool: pg.Pool, n: number): Promise<void> {
  let waiting = 0;
  for (let polls = 0; polls < 1000 && waiting < n; polls++) {
    waiting = await waitingLocks(pool);
    if (waiting < n) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(waiting).toBe(n);
}

describe('txmon_outcome_reads on a case shared by two users', () => {
  it('two outcomes of different users of one case raise its priority one after the other: the more urgent one stays', async () => {
    const pool = db.client as pg.Pool;
    await save('t-1', [buildAlertHit('ri-1', 'alice', 't-1', { alertId: 'A-1', caseId: 'C-1', priority: 'P3' })]);
    await save('t-2', [buildAlertHit('ri-1', 'bob', 't-2', { alertId: 'A-2', caseId: 'C-2', priority: 'P3', groupWithUserId: 'alice' })]);
    // bob's later hits are grouped with carol (no case): the two outcomes share no user, only the
    // case. Each round, another session holds the case row while they start, one after the other
    // (the second once the first waits), so both are under way before either writes; the less
    // urgent one starts first, then last.
    for (const [i, lessUrgentFirst] of [true, false, true, false].entries()) {
      await pool.query(`UPDATE txmon_cases SET "case" = jsonb_set("case", '{priority}', '"P3"') WHERE case_id = 'C-1'`);
      const blocker = await pool.connect();
      try {
        await blocker.query('BEGIN');
        await blocker.query(`SELECT 1 FROM txmon_cases WHERE case_id = 'C-1' FOR UPDATE`);
        const alice = () => save(`ta-${i}`, [buildAlertHit(`ri-a${i}`, 'alice', `ta-${i}`, { alertId: `A-a${i}`, caseId: `C-a${i}`, priority: 'P2' })]);
        const bob = () =>
          save(`tb-${i}`, [buildAlertHit(`ri-b${i}`, 'bob', `tb-${i}`, { alertId: `A-b${i}`, caseId: `C-b${i}`, priority: 'P1', groupWithUserId: 'carol' })]);
        const first = (lessUrgentFirst ? alice : bob)();
        await waitForWaiting(pool, 1);
        const second = (lessUrgentFirst ? bob : alice)();
        await waitForWaiting(pool, 2);
        await blocker.query('COMMIT');
        await Promise.all([first, second]);
      } finally {
        blocker.release();
      }
      const theCase = await repos.cases.getCase('C-1');
      expect([theCase?.priority, theCase?.userIds, theCase?.alertIds.length]).toEqual(['P1', ['alice', 'bob'], 4 + 2 * i]);
    }
  });
});
