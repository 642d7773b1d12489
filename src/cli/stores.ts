/**
 * Where `txmon serve` keeps its tenants' data (`--store`, `TXMON_STORE`): in memory (thrown away on
 * exit), in PGlite files under a directory (the default, `./txmon-data`), or on a PostgreSQL
 * server. Each tenant gets its own store: a memory store, a PGlite directory `<dir>/<tenant id>`
 * (the single tenant of a server without `--tenants` is `default`), or a schema.
 */
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createMemoryRepositories } from '../repositories/memory/index.js';
import type { Repositories } from '../engine/repositories.js';
import { createPostgresRepositories, migrate, type PostgresClient } from '../postgres/index.js';

/** Where the data goes. */
export type StoreSpec = { readonly kind: 'memory' } | { readonly kind: 'pglite'; readonly dir: string } | { readonly kind: 'postgres'; readonly url: string };

/** The store when neither `--store` nor `TXMON_STORE` is given: PGlite files in `./txmon-data`. */
export const DEFAULT_STORE = 'pglite:./txmon-data';

/** Thrown for a store argument that names no store; the command prints it with the usage. */
export class StoreSpecError extends Error {}

/** Parses `memory`, `pglite:<dir>` or `postgres://…` (also `postgresql://…`). */
export function parseStore(value: string): StoreSpec {
  if (value === 'memory') return { kind: 'memory' };
  if (value.startsWith('pglite:') && value.length > 'pglite:'.length) return { kind: 'pglite', dir: value.slice('pglite:'.length) };
  if (/^postgres(ql)?:\/\//.test(value)) return { kind: 'postgres', url: value };
  throw new StoreSpecError('--store must be memory, pglite:<dir> or postgres://…');
}

/** How a store is described in the log: never a password. */
export function describeStore(spec: StoreSpec): string {
  if (spec.kind === 'memory') return 'memory';
  if (spec.kind === 'pglite') return `pglite:${resolve(spec.dir)}`;
  const url = new URL(spec.url);
  if (url.password !== '') url.password = '***';
  return url.toString();
}

/** One tenant's repositories and how to close them. */
export interface OpenStore {
  readonly repositories: Repositories;
  close(): Promise<void>;
}

/** PostgreSQL truncates identifiers to 63 bytes. */
const MAX_IDENTIFIER_LENGTH = 63;

/**
 * The schema of a tenant on a PostgreSQL server (the single, default tenant uses the connection's
 * own): `txmon_<id>`, quoted so that case is kept; an id too long for an identifier keeps its first
 * 40 characters and gains a hash of the whole, so two tenants never share a schema.
 */
export function schemaOf(tenantId: string): string {
  const name = `txmon_${tenantId}`;
  if (name.length <= MAX_IDENTIFIER_LENGTH) return name;
  return `txmon_${tenantId.slice(0, 40)}_${createHash('sha256').update(tenantId).digest('hex').slice(0, 16)}`;
}

async function importOptional<T>(name: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (cause) {
    throw new StoreSpecError(`this store needs the package ${name}: npm install ${name} (${(cause as Error).message})`);
  }
}

/**
 * Opens (and migrates) the store of one tenant: its PGlite directory, or its schema on the server.
 * `single`: the only tenant of a server without tenants, which uses the connection's own schema.
 * Tenant ids are `[A-Za-z0-9_-]`, safe in a path and, quoted, in an identifier.
 */
export async function openStore(spec: StoreSpec, tenantId: string, single: boolean, memory: { maxStoredBytes: number }): Promise<OpenStore> {
  if (spec.kind === 'memory') return { repositories: createMemoryRepositories({ maxStoredBytes: memory.maxStoredBytes }), close: async () => undefined };
  if (spec.kind === 'pglite') {
    const { PGlite } = await importOptional<{ PGlite: new (dir: string) => PostgresClient & { close(): Promise<void> } }>('@electric-sql/pglite');
    const dir = join(spec.dir, tenantId);
    mkdirSync(dir, { recursive: true });
    const client = new PGlite(dir);
    await migrate(client);
    return { repositories: createPostgresRepositories({ client }), close: () => client.close() };
  }
  const pg = await importOptional<{
    default: { Pool: new (config: Record<string, unknown>) => PostgresClient & { end(): Promise<void>; on(event: string, listener: () => void): void } };
  }>('pg');
  const schema = single ? null : schemaOf(tenantId);
  if (schema !== null) {
    const setup = new pg.default.Pool({ connectionString: spec.url, max: 1 });
    try {
      await setup.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    } finally {
      await setup.end();
    }
  }
  const pool = new pg.default.Pool({ connectionString: spec.url, ...(schema === null ? {} : { options: `-c search_path="${schema}"` }) });
  // A connection the server closes while idle is replaced by the pool; nothing to report.
  pool.on('error', () => undefined);
  await migrate(pool);
  return { repositories: createPostgresRepositories({ client: pool }), close: () => pool.end() };
}
