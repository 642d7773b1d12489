/**
 * The repositories of `txmon/postgres`: every port in SQL, over a `pg` Pool or a PGlite instance,
 * one module per repository group. They store what the engine decides; the one policy applied in
 * SQL's transaction — where an alert hit lands, and what a user update does — is the domain's own
 * (`decideAlertHit`, `applyUserUpdate`), applied inside the same database transaction as the rest
 * of the outcome.
 */
import type { BatchSession, Repositories } from '../engine/repositories.js';
import { unitReadsOf, unitResultsOf, unitStartOf, type UnitReads, type UnitStartRow } from './unit.js';
import { createResultParts, type PartsWriter, type ResultParts } from './result-parts.js';
import { conflictOf } from './outcome.js';
import { createPostgresTransactions } from './transactions.js';
import { createPostgresRuleInstances } from './rule-instances.js';
import { createPostgresBatches, createPostgresComments, createPostgresFiles, createPostgresLists, createPostgresUsers } from './records.js';
import { createPostgresAlertsAndCases } from './alerts-and-cases.js';
import { createPostgresAggregates } from './aggregates.js';
import { createPostgresDecisions } from './decisions.js';
import { createPostgresOutbox } from './outbox.js';
import { createPostgresAudit } from './audit.js';
import { databaseOf, type Database, type DatabaseSession, type PostgresClient, type Sql } from './client.js';

/** Options of {@link createPostgresRepositories}. */
export interface PostgresRepositoriesOptions {
  /** A `pg` Pool (node-postgres) or a PGlite instance, migrated with `migrate(client)`. */
  readonly client: PostgresClient;
  /**
   * On a `pg` Pool: the schema to keep the data in (migrated with `migrate(client, { schema })`).
   * Several repository sets, one per schema, can share one pool: each connection's `search_path`
   * is set as it is taken, so the process's connections stay within the pool's `max`.
   */
  readonly schema?: string;
}

/** What the repositories of one database share: the database, and what this process knows of its result parts. */
interface Store {
  readonly root: Database;
  readonly parts: ResultParts;
}

/**
 * The repositories over `sql`. `db` is the database when `sql` is not inside a transaction (then
 * every multi-statement write opens its own); `null` inside a unit of work, whose first reads
 * `reads` answers and whose writes store the result parts they name with `unitParts`.
 */
function repositoriesOn(sql: Sql, db: Database | null, store: Store, reads: UnitReads | null, unitParts: PartsWriter | null = null): Repositories {
  const { root, parts } = store;
  return {
    transactions: createPostgresTransactions(sql, db, reads, root, parts, unitParts),
    ruleInstances: createPostgresRuleInstances(sql, db, reads),
    users: createPostgresUsers(sql, db, reads),
    comments: createPostgresComments(sql, db),
    cases: createPostgresAlertsAndCases(sql, db),
    files: createPostgresFiles(sql, db),
    aggregates: createPostgresAggregates(sql, db),
    lists: createPostgresLists(sql, db),
    batches: createPostgresBatches(sql),
    decisions: createPostgresDecisions(sql),
    audit: createPostgresAudit(sql),
    outbox: createPostgresOutbox(sql),
    flags: { durable: true, sharedAcrossProcesses: true, reportsStoreFaults: true },
    ping: () => root.ping(),
    async runExclusive(keys, work, options) {
      try {
        return await parts.committed((writer) =>
          root.unit(unitStartOf(keys, options), async (tx, rows) => {
            const started = rows as unknown as UnitStartRow[];
            await parts.expand(tx, unitResultsOf(started));
            return work(repositoriesOn(tx, null, store, unitReadsOf(started, options), writer));
          }),
        );
      } catch (error) {
        // The outcome's write travels with COMMIT: its conflict surfaces here.
        throw conflictOf(error);
      }
    },
    async openBatchSession() {
      const session = await root.session?.();
      return session ? batchSessionOn(session, store) : null;
    },
  };
}

/**
 * A {@link BatchSession} over a database session: its keys are session-level advisory locks on the
 * first connection (the same 64-bit hashes units lock per transaction, so the two exclude each
 * other), its writes units on the second.
 */
function batchSessionOn(session: DatabaseSession, store: Store): BatchSession {
  const hashes = 'SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest($1::text[]) AS n';
  return {
    async lock(keys, sharedKeys = []) {
      // The order every unit takes its keys in (txmon_unit_start): the shared ones, then by hash.
      await session.reads.query(
        `SELECT CASE WHEN k.shared THEN pg_advisory_lock_shared(k.h) ELSE pg_advisory_lock(k.h) END
           FROM (SELECT true AS shared, hashtextextended(n, 0) AS h FROM unnest($1::text[]) AS n
                 UNION SELECT false, hashtextextended(n, 0) FROM unnest($2::text[]) AS n ORDER BY 1 DESC, 2) AS k`,
        [[...sharedKeys], [...keys]],
      );
    },
    async tryLock(keys) {
      if (keys.length === 0) return true;
      const rows = await session.reads.query<{ h: string; got: boolean }>(
        `SELECT k.h::text AS h, pg_try_advisory_lock(k.h) AS got FROM (${hashes} ORDER BY 1) AS k`,
        [[...keys]],
      );
      if (rows.every((r) => r.got)) return true;
      const taken = rows.filter((r) => r.got).map((r) => r.h);
      if (taken.length > 0) await session.reads.query('SELECT pg_advisory_unlock(h::bigint) FROM unnest($1::text[]) AS h', [taken]);
      return false;
    },
    async unlock(keys) {
      if (keys.length > 0) await session.reads.query(`SELECT pg_advisory_unlock(k.h) FROM (${hashes}) AS k`, [[...keys]]);
    },
    reads: repositoriesOn(session.reads, null, store, null),
    async write(work) {
      try {
        return await store.parts.committed((writer) => session.unit(null, (tx) => work(repositoriesOn(tx, null, store, null, writer))));
      } catch (error) {
        throw conflictOf(error);
      }
    },
    close: (failed = false) => session.close(failed),
  };
}

/**
 * Repositories on PostgreSQL or PGlite (one SQL dialect): durable, and shared safely by any number
 * of engine processes (`flags.sharedAcrossProcesses`): every transaction's outcome is one SQL
 * transaction, run by the engine as a unit holding advisory locks on the transaction and its users.
 * Run {@link migrate} first.
 *
 * @example
 * ```ts
 * import { PGlite } from '@electric-sql/pglite';
 * import { createEngine } from 'txmon';
 * import { createPostgresRepositories, migrate } from 'txmon/postgres';
 * const client = new PGlite('./txmon-data');
 * await migrate(client);
 * const engine = createEngine({ repositories: createPostgresRepositories({ client }) });
 * ```
 */
export function createPostgresRepositories(options: PostgresRepositoriesOptions): Repositories {
  const db = databaseOf(options.client, options.schema === undefined ? {} : { schema: options.schema });
  return repositoriesOn(db, db, { root: db, parts: createResultParts() }, null);
}
