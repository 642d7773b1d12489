/**
 * The decision log in SQL (PGlite and PostgreSQL): the rows an engine appended verify; each way an
 * operator can tamper with the table in place — an entry edited, one edited and re-hashed, one
 * deleted, two swapped, the tail cut, the head row deleted, the chain rewritten whole — is caught
 * at the entry concerned (the last only against an anchor); and engines on separate pools writing
 * at once append one chain, with no fork.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine, type Engine } from '../../src/index.js';
import { createPostgresRepositories } from '../../src/postgres/index.js';
import { fixedClock, sequentialIds, T0, tx } from '../helpers.js';
import { pgliteDatabase, postgresDatabase, type TestDatabase } from './fixtures.js';

const TAMPERINGS: { name: string; sql: string[]; problem: string; seq: number; anchored?: boolean }[] = [
  { name: 'an entry edited', sql: [`UPDATE txmon_decisions SET entry = replace(entry, '"ALLOW"', '"BLOCK"') WHERE seq = 4`], problem: 'EDITED', seq: 4 },
  {
    name: 'an entry edited and re-hashed',
    sql: [
      `UPDATE txmon_decisions SET entry = replace(entry, '"ALLOW"', '"BLOCK"') WHERE seq = 4`,
      `UPDATE txmon_decisions SET hash = encode(sha256(convert_to(prev || entry, 'UTF8')), 'hex') WHERE seq = 4`,
    ],
    problem: 'EDITED',
    seq: 4,
  },
  { name: 'an entry deleted', sql: ['DELETE FROM txmon_decisions WHERE seq = 3'], problem: 'REMOVED', seq: 3 },
  {
    name: 'two entries swapped',
    sql: [
      'UPDATE txmon_decisions SET seq = -1 WHERE seq = 2',
      'UPDATE txmon_decisions SET seq = 2 WHERE seq = 5',
      'UPDATE txmon_decisions SET seq = 5 WHERE seq = -1',
    ],
    problem: 'REORDERED',
    seq: 2,
  },
  { name: 'the tail cut', sql: ['DELETE FROM txmon_decisions WHERE seq > 4'], problem: 'REMOVED', seq: 5 },
  { name: 'the head row deleted', sql: ['DELETE FROM txmon_decision_head'], problem: 'REMOVED', seq: 7 },
  {
    name: 'the chain rewritten whole from an edited entry',
    sql: [
      `UPDATE txmon_decisions SET entry = replace(entry, '"ALLOW"', '"BLOCK"') WHERE seq = 2`,
      // Every hash recomputed in order, and the head with them: the chain is consistent again.
      `DO $$ DECLARE r record; h text := repeat('0', 64); BEGIN
         FOR r IN SELECT seq, entry FROM txmon_decisions ORDER BY seq LOOP
           UPDATE txmon_decisions SET prev = h, hash = encode(sha256(convert_to(h || r.entry, 'UTF8')), 'hex') WHERE seq = r.seq RETURNING hash INTO h;
         END LOOP;
         UPDATE txmon_decision_head SET hash = h;
       END $$`,
    ],
    problem: 'EDITED',
    seq: 3,
    anchored: true,
  },
];

describe.each([
  ['PGlite', pgliteDatabase],
  ['PostgreSQL', postgresDatabase],
] as const)('the decision log on %s', (_name, open) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(async () => {
    await db?.close();
  });

  /** An engine on a fresh database with six decisions (five transactions and an event). */
  async function sixDecisions(): Promise<Engine> {
    const engine = createEngine({ repositories: await db.fresh(), clock: fixedClock(), ids: sequentialIds() });
    for (let i = 1; i <= 5; i++) await engine.createTransaction(tx({ transactionId: `s-${i}`, timestamp: T0 + i }));
    await engine.createTransactionEvent({ transactionId: 's-1', eventId: 'ev-1', timestamp: T0 + 9, transactionState: 'SUCCESSFUL' });
    return engine;
  }

  it.each(TAMPERINGS)('$name is caught at the entry concerned', async ({ sql, problem, seq, anchored }) => {
    const engine = await sixDecisions();
    const before = await engine.verifyDecisionLog();
    expect(before).toMatchObject({ ok: true, count: 6 });
    const anchor = { seq: 3, hash: (await engine.repositories.decisions.readDecisions(2, 1))[0]?.hash as string };
    for (const statement of sql) await db.client.query(statement);
    if (anchored === true) expect((await engine.verifyDecisionLog()).ok).toBe(true);
    const report = await engine.verifyDecisionLog(anchored === true ? { anchor } : {});
    expect(report.ok).toBe(false);
    expect(report.firstInvalid).toMatchObject({ problem, seq });
  });

  it('engines on separate connections writing at once append one chain: every decision once, no fork', async () => {
    const repositories = await db.fresh();
    const second = createPostgresRepositories({ client: db.client });
    const engines = [repositories, second].map((r) => createEngine({ repositories: r, clock: fixedClock() }));
    await Promise.all(
      engines.map((engine, e) =>
        Promise.all(Array.from({ length: 40 }, (_, i) => engine.createTransaction(tx({ transactionId: `c-${e}-${i}`, originUserId: `u-${i % 7}` })))),
      ),
    );
    const report = await (engines[0] as Engine).verifyDecisionLog();
    expect(report).toMatchObject({ ok: true, count: 80, head: { seq: 80 } });
    const ids = (await repositories.decisions.readDecisions(0, 100)).map(
      (r) => (JSON.parse(r.entry) as { decision: { transactionId: string } }).decision.transactionId,
    );
    expect(new Set(ids).size).toBe(80);
  });
});
