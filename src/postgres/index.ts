/**
 * `txmon/postgres`: the repositories on PostgreSQL (a `pg` Pool) or PGlite (one SQL dialect), and
 * the migrations of their schema. `pg` and `@electric-sql/pglite` are optional peer dependencies:
 * this entry imports neither; it uses the client it is given.
 */
export { createPostgresRepositories, type PostgresRepositoriesOptions } from './repositories.js';
export { migrate, SCHEMA_VERSION, type MigrateOptions, type MigrationResult } from './migrate.js';
export type { PGliteLike, PgPoolClientLike, PgPoolLike, PostgresClient } from './client.js';
