/** The decision log's reads (appends travel with each outcome's write: see `appendDecisionsOf` in outcome.ts). */
import type { DecisionLogRow } from '../domain/decision-log.js';
import type { DecisionLogRepository } from '../engine/repositories.js';
import { prepared, type Sql } from './client.js';

// Ordered by the column, not the text alias of the same name (text order would put 10 before 2).
const READ_SQL = prepared('SELECT d.seq::text AS seq, d.prev, d.entry, d.hash FROM txmon_decisions d WHERE d.seq > $1 ORDER BY d.seq LIMIT $2');
const HEAD_SQL = prepared('SELECT seq::text AS seq, hash FROM txmon_decision_head WHERE id = 1');

/** The decision log on `sql`. */
export function createPostgresDecisions(sql: Sql): DecisionLogRepository {
  return {
    async readDecisions(afterSeq, limit) {
      const rows = await sql.query<{ seq: string; prev: string; entry: string; hash: string }>(READ_SQL, [afterSeq, limit]);
      return rows.map((r): DecisionLogRow => ({ seq: Number(r.seq), prev: r.prev, entry: r.entry, hash: r.hash }));
    },
    async decisionHead() {
      const rows = await sql.query<{ seq: string; hash: string }>(HEAD_SQL, []);
      const row = rows[0];
      return row === undefined ? null : { seq: Number(row.seq), hash: row.hash };
    },
  };
}
