/**
 * The schema of `txmon/postgres`, as numbered migrations applied once each. `migrate` is safe to
 * run from several processes at once: they take turns on an advisory lock, and each migration is
 * recorded in the same transaction that applies it.
 */
import { databaseOf, type PostgresClient } from './client.js';

/** One step of the schema. Never edit a released step: add the next one. */
interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'txmon tables',
    sql: `
CREATE TABLE txmon_meta (
  name text PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO txmon_meta (name, value) VALUES ('rule_instance_revision', 0);

-- A transaction: its current state, the payload it was created with, and its results.
CREATE TABLE txmon_transactions (
  transaction_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  version integer NOT NULL,
  event_count integer NOT NULL,
  last_event_timestamp double precision,
  body jsonb NOT NULL,
  request jsonb NOT NULL,
  create_result jsonb NOT NULL,
  latest_result jsonb NOT NULL
);

CREATE TABLE txmon_events (
  event_id text PRIMARY KEY,
  transaction_id text NOT NULL,
  arrival integer NOT NULL,
  client_event_id boolean NOT NULL,
  event jsonb NOT NULL,
  body jsonb NOT NULL,
  result jsonb NOT NULL
);
CREATE INDEX txmon_events_by_transaction ON txmon_events (transaction_id, arrival);

CREATE TABLE txmon_rule_instances (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  stored jsonb NOT NULL,
  run_count bigint NOT NULL DEFAULT 0,
  hit_count bigint NOT NULL DEFAULT 0
);

CREATE TABLE txmon_users (
  user_id text PRIMARY KEY,
  record jsonb NOT NULL
);

CREATE TABLE txmon_comments (
  seq bigserial PRIMARY KEY,
  target_kind text NOT NULL,
  target_id text NOT NULL,
  comment jsonb NOT NULL
);
CREATE INDEX txmon_comments_by_target ON txmon_comments (target_kind, target_id, seq);

-- An alert without its transaction ids (txmon_alert_transactions: one row per id, appended).
CREATE TABLE txmon_alerts (
  alert_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  instance_id text NOT NULL,
  user_id text NOT NULL,
  alert jsonb NOT NULL
);
CREATE INDEX txmon_alerts_by_instance_user ON txmon_alerts (instance_id, user_id, seq DESC);

CREATE TABLE txmon_alert_transactions (
  alert_id text NOT NULL,
  transaction_id text NOT NULL,
  seq bigserial NOT NULL,
  PRIMARY KEY (alert_id, transaction_id)
);
CREATE INDEX txmon_alert_transactions_in_order ON txmon_alert_transactions (alert_id, seq);

-- A case without its alert ids (txmon_case_alerts: one row per alert, appended).
CREATE TABLE txmon_cases (
  case_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  user_id text NOT NULL,
  "case" jsonb NOT NULL
);
CREATE INDEX txmon_cases_by_user ON txmon_cases (user_id, seq DESC);

CREATE TABLE txmon_case_alerts (
  case_id text NOT NULL,
  alert_id text NOT NULL,
  seq bigserial NOT NULL,
  PRIMARY KEY (case_id, alert_id)
);
CREATE INDEX txmon_case_alerts_in_order ON txmon_case_alerts (case_id, seq);

CREATE TABLE txmon_files (
  key text PRIMARY KEY,
  record jsonb NOT NULL,
  content bytea
);

CREATE TABLE txmon_lists (
  list_id text PRIMARY KEY,
  seq bigserial NOT NULL,
  list jsonb NOT NULL
);
CREATE TABLE txmon_list_items (
  list_id text NOT NULL,
  item text NOT NULL,
  seq integer NOT NULL,
  PRIMARY KEY (list_id, item)
);

-- Windowed aggregates: one row per (series, key, entry); amounts exact (scaled integers).
CREATE TABLE txmon_series_entries (
  series text NOT NULL,
  key text NOT NULL,
  id text NOT NULL,
  ts double precision NOT NULL,
  amount numeric,
  vals jsonb,
  PRIMARY KEY (series, key, id)
);
CREATE INDEX txmon_series_entries_window ON txmon_series_entries (series, key, ts) INCLUDE (amount);

-- Takes the advisory locks of one unit of work, in one round trip: the shared ones, then the
-- exclusive ones in ascending order of their 64-bit keys (every unit takes them in that order, so
-- none deadlocks; two names with one key only wait for each other).
CREATE FUNCTION txmon_lock(shared_names text[], exclusive_names text[]) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE k bigint;
BEGIN
  FOR k IN SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest(shared_names) AS n ORDER BY h LOOP PERFORM pg_advisory_xact_lock_shared(k); END LOOP;
  FOR k IN SELECT DISTINCT hashtextextended(n, 0) AS h FROM unnest(exclusive_names) AS n ORDER BY h LOOP PERFORM pg_advisory_xact_lock(k); END LOOP;
END $$;
`,
  },
  {
    version: 2,
    name: 'series retention horizons',
    sql: `
-- Per series pruned since it was last filled whole: entries older than retained_from are gone.
CREATE TABLE txmon_series_retention (
  series text PRIMARY KEY,
  retained_from double precision NOT NULL
);
`,
  },
];

/** The advisory lock key migrations take turns on. */
const MIGRATION_LOCK = 7_340_271_113_001;

/** What {@link migrate} did. */
export interface MigrationResult {
  /** The schema version now. */
  readonly version: number;
  /** The versions this call applied (empty when the schema was current). */
  readonly applied: readonly number[];
}

/**
 * Brings the database of `client` (a `pg` Pool or a PGlite instance) to the current txmon schema.
 * Idempotent; safe when several processes run it at once.
 *
 * @example
 * ```ts
 * import pg from 'pg';
 * import { migrate, createPostgresRepositories } from 'txmon/postgres';
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await migrate(pool);
 * const engine = createEngine({ repositories: createPostgresRepositories({ client: pool }) });
 * ```
 */
export async function migrate(client: PostgresClient): Promise<MigrationResult> {
  const db = databaseOf(client);
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query('CREATE TABLE IF NOT EXISTS txmon_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
    const rows = await tx.query<{ version: number | null }>('SELECT max(version) AS version FROM txmon_migrations');
    const current = rows[0]?.version ?? 0;
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (migration.version <= current) continue;
      await tx.execute(migration.sql);
      await tx.query('INSERT INTO txmon_migrations (version, name) VALUES ($1, $2)', [migration.version, migration.name]);
      applied.push(migration.version);
    }
    return { version: Math.max(current, ...applied), applied };
  });
}

/** The schema version this build of txmon needs. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
