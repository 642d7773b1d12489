/**
 * One SQL dialect over two clients: a node-postgres `Pool` (or anything with its `query` and
 * `connect`) and a PGlite instance. txmon imports neither package; it talks to what it is given.
 */
import { configurationError } from '../errors.js';

/** What txmon needs of a node-postgres `Pool`. */
export interface PgPoolLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgPoolClientLike>;
  end?(): Promise<void>;
}

/** What txmon needs of a node-postgres pool client. */
export interface PgPoolClientLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
}

/** What txmon needs of a PGlite instance. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(fn: (tx: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>; exec(text: string): Promise<unknown> }) => Promise<T>): Promise<T>;
  close?(): Promise<void>;
}

/** A client `txmon/postgres` accepts: a `pg` Pool or a PGlite instance. */
export type PostgresClient = PgPoolLike | PGliteLike;

/** Statements on one connection (or the pool). */
export interface Sql {
  /** One statement with `$n` parameters; its rows. */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Several statements without parameters, in one call (migrations). */
  execute(text: string): Promise<void>;
}

/** The database: statements, and transactions on one connection. */
export interface Database extends Sql {
  /** Runs `fn` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
}

function isPGlite(client: PostgresClient): client is PGliteLike {
  return typeof (client as PGliteLike).transaction === 'function' && typeof (client as PGliteLike).exec === 'function';
}

function isPgPool(client: PostgresClient): client is PgPoolLike {
  return typeof (client as PgPoolLike).connect === 'function' && typeof (client as PgPoolLike).query === 'function';
}

/**
 * The {@link Database} over `client`.
 * @throws TxmonError `INVALID_CONFIGURATION` when `client` is neither a `pg` Pool nor a PGlite instance
 */
export function databaseOf(client: PostgresClient): Database {
  if (isPGlite(client)) {
    const sqlOf = (q: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>; exec(text: string): Promise<unknown> }): Sql => ({
      async query<R>(text: string, params: readonly unknown[] = []) {
        return (await q.query(text, [...params])).rows as R[];
      },
      async execute(text) {
        await q.exec(text);
      },
    });
    return { ...sqlOf(client), transaction: (fn) => client.transaction((tx) => fn(sqlOf(tx))) };
  }
  if (isPgPool(client)) {
    return {
      async query<R>(text: string, params: readonly unknown[] = []) {
        return (await client.query(text, [...params])).rows as R[];
      },
      async transaction(fn) {
        const connection = await client.connect();
        const tx: Sql = {
          async query<R>(text: string, params: readonly unknown[] = []) {
            return (await connection.query(text, [...params])).rows as R[];
          },
          async execute(text) {
            await connection.query(text);
          },
        };
        let broken = false;
        try {
          await connection.query('BEGIN');
          const result = await fn(tx);
          await connection.query('COMMIT');
          return result;
        } catch (error) {
          try {
            await connection.query('ROLLBACK');
          } catch {
            // The connection is unusable: it is dropped from the pool below.
            broken = true;
          }
          throw error;
        } finally {
          connection.release(broken);
        }
      },
      async execute(text) {
        await client.query(text);
      },
    };
  }
  throw configurationError('txmon/postgres', 'client must be a pg Pool or a PGlite instance');
}
