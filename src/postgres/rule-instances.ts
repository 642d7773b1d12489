/**
 * Rule instances on PostgreSQL: the stored instances and their run and hit counters, summed over
 * the counter shards.
 */
import type { RuleInstance } from '../domain/entities.js';
import type { RuleInstanceRepository, RuleInstanceVersion, StoredRuleInstance } from '../engine/repositories.js';
import { json } from './rows.js';
import type { UnitReads } from './unit.js';
import type { Database, Sql } from './client.js';
import { appendWriteLogs, withAudit } from './audit.js';

/**
 * The rule instances over `sql`; inside a unit, `reads` answers its first reads. `db` is the
 * database when `sql` is not inside a transaction: a write then opens its own, so the instance, its
 * version, the revision and the audit entries commit together.
 */
export function createPostgresRuleInstances(sql: Sql, db: Database | null, reads: UnitReads | null): RuleInstanceRepository {
  interface Row {
    stored: StoredRuleInstance;
    run_count: string | number;
    hit_count: string | number;
  }
  const withCounters = (r: Row): RuleInstance => ({ ...r.stored.instance, runCount: Number(r.run_count), hitCount: Number(r.hit_count) }) as RuleInstance;
  // The instance's own counters (kept on replace) plus its counts in every shard.
  const SELECT_WITH_COUNTERS = `SELECT r.stored, r.run_count + coalesce(k.runs, 0) AS run_count, r.hit_count + coalesce(k.hits, 0) AS hit_count
    FROM txmon_rule_instances r
    LEFT JOIN LATERAL (SELECT sum(u.runs) AS runs, sum(u.hits) AS hits FROM txmon_instance_counters c, unnest(c.seqs, c.runs, c.hits) AS u(seq, runs, hits)
      WHERE u.seq = r.seq) AS k ON true`;
  const bump = (tx: Sql) => {
    if (reads) {
      reads.live = false;
      reads.revision = null;
    }
    return tx.query(`UPDATE txmon_meta SET value = value + 1 WHERE name = 'rule_instance_revision'`);
  };
  return {
    async listRuleInstances() {
      return (await sql.query<Row>(`${SELECT_WITH_COUNTERS} ORDER BY r.seq`)).map(withCounters);
    },
    async getRuleInstance(id) {
      const rows = await sql.query<Row>(`${SELECT_WITH_COUNTERS} WHERE r.id = $1`, [id]);
      return rows[0] ? withCounters(rows[0]) : null;
    },
    async getStoredRuleInstance(id) {
      const rows = await sql.query<Row>('SELECT stored FROM txmon_rule_instances WHERE id = $1', [id]);
      return rows[0]?.stored ?? null;
    },
    async putRuleInstance(stored, writes) {
      // One statement: the instance and its version; then the revision and the audit entries.
      await withAudit(sql, db, writes, async (tx) => {
        await tx.query(
          `WITH put AS (
           INSERT INTO txmon_rule_instances (id, stored) VALUES ($1, $2::jsonb) ON CONFLICT (id) DO UPDATE SET stored = excluded.stored RETURNING 1
         )
         INSERT INTO txmon_rule_instance_versions (id, version, instance) SELECT $1, $3::integer, $2::jsonb -> 'instance' FROM put
         ON CONFLICT (id, version) DO UPDATE SET instance = excluded.instance`,
          [stored.instance.id, json(stored), stored.instance.version],
        );
        await bump(tx);
      });
    },
    deleteRuleInstance(id, writes) {
      // The instance's counts go from the shards with it. The audit entries only when it existed.
      const work = async (tx: Sql) => {
        const rows = await tx.query<{ seq: string }>(
          `WITH gone AS (DELETE FROM txmon_rule_instances WHERE id = $1 RETURNING seq),
           counters AS (UPDATE txmon_instance_counters c SET (seqs, runs, hits) = (
               SELECT coalesce(array_agg(u.seq ORDER BY u.seq), '{}'), coalesce(array_agg(u.runs ORDER BY u.seq), '{}'), coalesce(array_agg(u.hits ORDER BY u.seq), '{}')
                 FROM unnest(c.seqs, c.runs, c.hits) AS u(seq, runs, hits) WHERE u.seq <> gone.seq)
             FROM gone WHERE gone.seq = ANY(c.seqs))
         SELECT seq::text AS seq FROM gone`,
          [id],
        );
        if (rows.length === 0) return false;
        await bump(tx);
        return true;
      };
      const run = async (tx: Sql) => {
        const existed = await work(tx);
        if (existed) await appendWriteLogs(tx, writes);
        return existed;
      };
      return db === null ? run(sql) : db.transaction(run);
    },
    async getRevision() {
      // Only a rule-instance write (bump) changes the revision, and a transaction unit holds the rule
      // instances' key shared, so no other unit writes one meanwhile: read once per unit (a batch's
      // chunk asks once per record).
      if (reads && reads.revision !== null) return reads.revision;
      const rows = await sql.query<{ value: string | number }>(`SELECT value FROM txmon_meta WHERE name = 'rule_instance_revision'`);
      const revision = Number(rows[0]?.value ?? 0);
      if (reads) reads.revision = revision;
      return revision;
    },
    async listRuleInstanceVersions(id) {
      const rows = await sql.query<{ instance: RuleInstanceVersion }>('SELECT instance FROM txmon_rule_instance_versions WHERE id = $1 ORDER BY version DESC', [
        id,
      ]);
      return rows.map((r) => r.instance);
    },
  };
}
