/**
 * Databases for the txmon/postgres tests: one PGlite (in memory) and one real PostgreSQL database on
 * the server the test run brings (`test/setup/postgres-server.ts`), each migrated once and emptied
 * between uses.
 */
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { inject } from 'vitest';
import { createPostgresRepositories, migrate, type PostgresClient } from '../../src/postgres/index.js';
import type { Repositories } from '../../src/index.js';

const TABLES = [
  'txmon_transactions',
  'txmon_result_parts',
  'txmon_events',
  'txmon_user_events',
  'txmon_rule_instances',
  'txmon_users',
  'txmon_comments',
  'txmon_alerts',
  'txmon_alert_transactions',
  'txmon_cases',
  'txmon_case_alerts',
  'txmon_files',
  'txmon_lists',
  'txmon_list_items',
  'txmon_series_entries',
  'txmon_instance_counters',
  'txmon_batches',
  'txmon_decisions',
  'txmon_rule_instance_versions',
  'txmon_audit_log',
  'txmon_outbox',
  'txmon_outbox_consumers',
  'txmon_outbox_dead_letters',
];

/** Empties every txmon table and resets the instance revision, the audit sequence and the decision log's head. */
export async function emptyDatabase(client: PostgresClient): Promise<void> {
  await client.query(`TRUNCATE ${TABLES.join(', ')}`);
  await client.query(`UPDATE txmon_meta SET value = 0 WHERE name IN ('rule_instance_revision', 'audit_seq', 'outbox_seq')`);
  await client.query(`DELETE FROM txmon_decision_head`);
  await client.query(`INSERT INTO txmon_decision_head (id, seq, hash) VALUES (1, 0, repeat('0', 64))`);
}

/** A database for a test file: `fresh()` empties it and returns repositories on it. */
export interface TestDatabase {
  readonly name: string;
  readonly client: PostgresClient;
  fresh(): Promise<Repositories>;
  close(): Promise<void>;
}

async function prepared(name: string, client: PostgresClient, close: () => Promise<void>): Promise<TestDatabase> {
  await migrate(client);
  return {
    name,
    client,
    async fresh() {
      await emptyDatabase(client);
      return createPostgresRepositories({ client });
    },
    close,
  };
}

/** A PGlite database in memory. */
export async function pgliteDatabase(): Promise<TestDatabase> {
  const client = new PGlite();
  return prepared('PGlite', client, () => client.close());
}

/** The URL of the run's PostgreSQL server (`TXMON_TEST_POSTGRES_URL`, or the one started for the run). */
export const POSTGRES_URL: string = inject('postgresUrl');

/** A fresh database on the PostgreSQL server of {@link POSTGRES_URL}, dropped by `close`. */
export async function postgresDatabase(): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  const name = `txmon_test_${process.pid}_${Math.floor(Math.random() * 1e9)}`;
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 8 });
  // An idle connection closed by the server (the database dropped at the end) is not an error here.
  pool.on('error', () => undefined);
  return prepared('PostgreSQL', pool, async () => {
    await pool.end();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });
}
