/**
 * The audit log on PostgreSQL (`txmon_audit_log`, migration 10). A write that audits runs
 * {@link insertAuditEntries} inside its own database transaction, after its change: the entries
 * commit or roll back with it.
 *
 * Entries are numbered from the counter row `audit_seq` of `txmon_meta`, which the insert updates:
 * its row lock is held until COMMIT, so two auditing transactions commit in the order of their
 * numbers, and a reader never sees an entry numbered below one it saw before (keyset pages by
 * `seq` neither skip nor repeat). The price: auditing writes commit one at a time. The insert is
 * the last statement of every write, so the lock is held only for the COMMIT.
 */
import { type AuditEntry, MAX_AUDIT_COUNT } from '../domain/index.js';
import type { AuditEntryQuery, AuditRepository, AuditWrites, StoredAuditEntry } from '../engine/repositories.js';
import type { Database, Sql } from './client.js';
import { appendOutbox } from './outbox.js';
import { json } from './rows.js';

/** Appends `entries` (none: no statement) over `sql`, which must be the transaction of the change they record. */
export async function insertAuditEntries(sql: Sql, entries: readonly AuditEntry[] | undefined): Promise<void> {
  if (entries === undefined || entries.length === 0) return;
  await sql.query(
    `WITH n AS (UPDATE txmon_meta SET value = value + $2 WHERE name = 'audit_seq' RETURNING value)
     INSERT INTO txmon_audit_log (seq, entity_type, entity_id, action, actor, ts, entry)
     SELECT n.value - $2 + e.ord, e.doc ->> 'entityType', e.doc ->> 'entityId', e.doc ->> 'action', e.doc ->> 'actor', (e.doc ->> 'timestamp')::float8, e.doc
       FROM n, jsonb_array_elements($1::jsonb) WITH ORDINALITY AS e(doc, ord)`,
    [json(entries), entries.length],
  );
}

/** Appends a write's audit entries and then its outbox messages over `sql`, the transaction of the change: its last statements. */
export async function appendWriteLogs(sql: Sql, writes: AuditWrites | undefined): Promise<void> {
  await insertAuditEntries(sql, writes?.audit);
  await appendOutbox(sql, writes?.outbox);
}

/** Whether `writes` appends anything. */
export function logsAny(writes: AuditWrites | undefined): boolean {
  return (writes?.audit?.length ?? 0) > 0 || (writes?.outbox?.length ?? 0) > 0;
}

/**
 * Runs `work` and then appends the audit entries and outbox messages of `writes`, in one database
 * transaction: `db`'s own when the repositories are not inside one (`db` not `null`), else the
 * unit's (`sql`). Without any, `work` runs as it is (`single`: it is one statement, atomic on its own).
 */
export async function withAudit<T>(sql: Sql, db: Database | null, writes: AuditWrites | undefined, work: (tx: Sql) => Promise<T>, single = false): Promise<T> {
  const run = async (tx: Sql) => {
    const result = await work(tx);
    await appendWriteLogs(tx, writes);
    return result;
  };
  if (db === null || (single && !logsAny(writes))) return run(sql);
  return db.transaction(run);
}

/** The audit log over `sql`. */
export function createPostgresAudit(sql: Sql): AuditRepository {
  return {
    async listAuditEntries(query: AuditEntryQuery) {
      const filters = [
        query.entityType ?? null,
        query.entityId ?? null,
        query.action ?? null,
        query.actor ?? null,
        query.fromTimestamp ?? null,
        query.toTimestamp ?? null,
      ];
      const where = `($1::text IS NULL OR entity_type = $1) AND ($2::text IS NULL OR entity_id = $2) AND ($3::text IS NULL OR action = $3)
        AND ($4::text IS NULL OR actor = $4) AND ($5::float8 IS NULL OR ts >= $5) AND ($6::float8 IS NULL OR ts <= $6)`;
      const ascending = query.order === 'ASC';
      const rows = await sql.query<{ seq: string | number; entry: AuditEntry }>(
        `SELECT seq, entry FROM txmon_audit_log WHERE ${where} AND ($7::bigint IS NULL OR seq ${ascending ? '>' : '<'} $7)
         ORDER BY seq ${ascending ? 'ASC' : 'DESC'} LIMIT $8`,
        [...filters, query.position ?? null, query.limit],
      );
      const counted = await sql.query<{ n: string | number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM txmon_audit_log WHERE ${where} LIMIT $7) AS m`, [
        ...filters,
        MAX_AUDIT_COUNT,
      ]);
      const entries: StoredAuditEntry[] = rows.map((r) => ({ seq: Number(r.seq), entry: r.entry }));
      return { entries, total: Number(counted[0]?.n ?? 0) };
    },
  };
}
