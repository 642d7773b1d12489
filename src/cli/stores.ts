/**
 * Where `txmon serve` and `txmon prune` keep their tenants' data (`--store`, `TXMON_STORE`): in
 * memory (thrown away on exit), in PGlite files under a directory (the default, `./txmon-data`), or
 * on a PostgreSQL server. Each tenant gets its own store: a memory store, a PGlite directory
 * `<dir>/<tenant id>` (the single tenant of a server without `--tenants` is `default`), or a schema.
 *
 * A PGlite directory is locked by the process that opens it (directory-lock.ts). On PostgreSQL the
 * process has one pool, shared by all its tenants (each connection's `search_path` is set to the
 * tenant's schema as it is taken), with every wait bounded: connecting and waiting for a pooled
 * connection, each statement, each lock wait, a session idle inside a transaction, and a database
 * that stops answering. A store that cannot be reached at start is tried again with back-off.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { isTxmonError } from '../errors.js';
import type { Repositories } from '../engine/repositories.js';
import { createMemoryRepositories } from '../repositories/memory/index.js';
import { createPostgresRepositories, migrate, type PostgresClient } from '../postgres/index.js';
import { storeErrorOf } from '../postgres/client.js';
import { lockDirectory, type DirectoryLock } from './directory-lock.js';

/** Where the data goes. */
export type StoreSpec = { readonly kind: 'memory' } | { readonly kind: 'pglite'; readonly dir: string } | { readonly kind: 'postgres'; readonly url: string };

/** The store when neither `--store` nor `TXMON_STORE` is given: PGlite files in `./txmon-data`. */
export const DEFAULT_STORE = 'pglite:./txmon-data';

/**
 * The store the environment names: `TXMON_STORE`, else the first line of the file
 * `TXMON_STORE_FILE` (a secret holding a PostgreSQL URL with its password, as a container
 * platform mounts it); `undefined` for neither (an empty value counts as none).
 * @throws StoreSpecError when `TXMON_STORE_FILE` cannot be read.
 */
export function storeOfEnvironment(env: NodeJS.ProcessEnv): string | undefined {
  const named = env.TXMON_STORE?.trim();
  if (named) return named;
  const file = env.TXMON_STORE_FILE?.trim();
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new StoreSpecError(`TXMON_STORE_FILE: cannot read ${file}`);
  }
  return text.split(/\r?\n/)[0]?.trim() || undefined;
}

/** Thrown for a store argument that names no store; the command prints it with the usage. */
export class StoreSpecError extends Error {}

/** Thrown when the store could not be opened in time; the command prints its one line and exits 1. */
export class StoreStartError extends Error {}

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

/** The bounds of a store's waits, and of its connections on PostgreSQL. */
export interface StoreSettings {
  /** PostgreSQL connections of the process, shared by all its tenants. */
  readonly poolSize: number;
  /** Longest wait to connect to PostgreSQL, or for a pooled connection when all are busy. */
  readonly connectTimeoutMs: number;
  /**
   * Longest run of one statement (PostgreSQL's `statement_timeout`); also the longest a session may
   * sit idle inside a transaction, and, with 5 s more, the longest txmon waits for any answer (a
   * database that stops answering).
   */
  readonly statementTimeoutMs: number;
  /** Longest wait for a lock (PostgreSQL's `lock_timeout`): a table or row held by another session. */
  readonly lockTimeoutMs: number;
  /** How long a store that cannot be reached at start is tried again before the command gives up. */
  readonly startWaitMs: number;
}

/** The defaults of {@link StoreSettings}. */
export const DEFAULT_STORE_SETTINGS: StoreSettings = Object.freeze({
  poolSize: 10,
  connectTimeoutMs: 3_000,
  statementTimeoutMs: 30_000,
  lockTimeoutMs: 2_000,
  startWaitMs: 60_000,
});

/** The stores of a command's tenants, opened. */
export interface OpenStores {
  /** Each tenant's repositories, by tenant id. */
  readonly repositories: ReadonlyMap<string, Repositories>;
  /** Closes every store (a pool's connections, PGlite's files) and gives up the directory lock. */
  close(): Promise<void>;
}

/** What {@link openStores} is told of the command. */
export interface OpenStoresOptions {
  /** The only tenant of a server without tenants: it uses the connection's own schema. */
  readonly single: boolean;
  /** A memory store's byte budget per tenant. */
  readonly maxStoredBytes: number;
  readonly settings: StoreSettings;
  /** Told what opening is doing (`connecting`, `migrating`, a retry and its cause), for `/readyz` and the log. */
  readonly onProgress?: (detail: string) => void;
  /** Told of a pooled connection lost while idle (the pool replaces it). */
  readonly onConnectionError?: (error: Error) => void;
  /** A PGlite store: the lock the caller already holds on its directory (else it is taken here, and given up on close). */
  readonly lock?: DirectoryLock;
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

/** Whether `error` says the store is away or slow (worth another try), rather than refusing for good. */
function isPassingFault(error: unknown): boolean {
  const reported = storeErrorOf(error);
  return isTxmonError(reported) && (reported.code === 'STORE_UNAVAILABLE' || reported.code === 'STORE_TIMEOUT');
}

/**
 * Runs `attempt` until it succeeds, trying again after a store fault with back-off (0.25 s doubling
 * to 5 s) for at most `waitMs`.
 * @throws StoreStartError naming `what` and the last cause, once `waitMs` have passed or on an
 *   error that is no passing fault (a wrong password, a database that does not exist).
 */
async function withStartRetries<T>(what: string, waitMs: number, attempt: () => Promise<T>, onProgress: (detail: string) => void): Promise<T> {
  const deadline = Date.now() + waitMs;
  let delay = 250;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const cause = causeMessageOf(error);
      if (!isPassingFault(error)) throw new StoreStartError(`cannot open ${what}: ${cause}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new StoreStartError(`${what} did not answer within ${Math.round(waitMs / 1000)} s (tried ${tries} times): ${cause}`);
      onProgress(`waiting for the database (attempt ${tries}: ${cause})`);
      await sleep(Math.min(delay, left));
      delay = Math.min(5_000, delay * 2);
    }
  }
}

/** The message of the innermost cause of `error` (the driver's: "connect ECONNREFUSED …"). */
function causeMessageOf(error: unknown): string {
  let current = error;
  for (let depth = 0; depth < 8 && (current as { cause?: unknown } | null)?.cause != null; depth++) current = (current as { cause: unknown }).cause;
  return (current as Error | null)?.message || String(current);
}

/** One memory store per tenant. */
function openMemory(tenantIds: readonly string[], maxStoredBytes: number): OpenStores {
  return {
    repositories: new Map(tenantIds.map((id) => [id, createMemoryRepositories({ maxStoredBytes })])),
    close: async () => undefined,
  };
}

type PGliteClient = PostgresClient & { close(): Promise<void> };

/** A PGlite database per tenant under `dir`, locked for this process first. */
async function openPGlite(dir: string, tenantIds: readonly string[], options: OpenStoresOptions): Promise<OpenStores> {
  const { PGlite } = await importOptional<{ PGlite: new (dir: string) => PGliteClient }>('@electric-sql/pglite');
  const own = options.lock === undefined;
  const lock: DirectoryLock = options.lock ?? lockDirectory(dir);
  const clients: PGliteClient[] = [];
  const close = async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    if (own) lock.release();
  };
  try {
    const repositories = new Map<string, Repositories>();
    for (const id of tenantIds) {
      const tenantDir = join(lock.dir, id);
      mkdirSync(tenantDir, { recursive: true });
      options.onProgress?.(`opening ${tenantDir}`);
      const client = new PGlite(tenantDir);
      clients.push(client);
      options.onProgress?.(`migrating ${tenantDir}`);
      await migrate(client);
      repositories.set(id, createPostgresRepositories({ client }));
    }
    return { repositories, close };
  } catch (error) {
    await close();
    throw error;
  }
}

type PgPool = PostgresClient & { end(): Promise<void>; on(event: 'error', listener: (error: Error) => void): unknown };

/** The pool's settings: every wait bounded (see {@link StoreSettings}). */
function poolConfigOf(url: string, settings: StoreSettings): Record<string, unknown> {
  return {
    connectionString: url,
    max: settings.poolSize,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    statement_timeout: settings.statementTimeoutMs,
    lock_timeout: settings.lockTimeoutMs,
    idle_in_transaction_session_timeout: settings.statementTimeoutMs,
    query_timeout: settings.statementTimeoutMs + 5_000,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
  };
}

/** One pool on the server for every tenant, each tenant in its schema (the single tenant in the connection's own). */
async function openPostgres(url: string, tenantIds: readonly string[], options: OpenStoresOptions): Promise<OpenStores> {
  const pg = await importOptional<{ default: { Pool: new (config: Record<string, unknown>) => PgPool } }>('pg');
  const pool = new pg.default.Pool(poolConfigOf(url, options.settings));
  pool.on('error', (error) => options.onConnectionError?.(error));
  const close = () => pool.end().catch(() => undefined);
  try {
    const repositories = new Map<string, Repositories>();
    const what = `the database ${describeStore({ kind: 'postgres', url })}`;
    for (const id of tenantIds) {
      const schema = options.single ? undefined : schemaOf(id);
      const scope = schema === undefined ? {} : { schema };
      options.onProgress?.(schema === undefined ? 'migrating' : `migrating schema ${schema}`);
      await withStartRetries(what, options.settings.startWaitMs, () => migrate(pool, scope), options.onProgress ?? (() => undefined));
      repositories.set(id, createPostgresRepositories({ client: pool, ...scope }));
    }
    return { repositories, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Opens (and migrates) the stores of `tenantIds`: memory stores, PGlite directories under one
 * locked directory, or schemas on one PostgreSQL pool.
 * @throws DirectoryLockedError when another process holds the PGlite directory; StoreStartError
 *   when PostgreSQL does not answer within `settings.startWaitMs`; StoreSpecError when the store's
 *   package is missing.
 */
export async function openStores(spec: StoreSpec, tenantIds: readonly string[], options: OpenStoresOptions): Promise<OpenStores> {
  if (spec.kind === 'memory') return openMemory(tenantIds, options.maxStoredBytes);
  if (spec.kind === 'pglite') return openPGlite(spec.dir, tenantIds, options);
  return openPostgres(spec.url, tenantIds, options);
}
