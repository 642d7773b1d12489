/**
 * One SQL dialect over two clients: a node-postgres `Pool` (or anything with its `query` and
 * `connect`) and a PGlite instance. txmon imports neither package; it talks to what it is given.
 */
import { configurationError, isTxmonError, TxmonError } from '../errors.js';

/** A statement node-postgres prepares once per connection under `name` (see {@link prepared}). */
export interface PgQueryConfig {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/** What txmon needs of a node-postgres `Pool`. */
export interface PgPoolLike {
  query(text: string | PgQueryConfig, params?: unknown[]): Promise<{ rows: unknown[] }>;
  connect(): Promise<PgPoolClientLike>;
  end?(): Promise<void>;
  /** node-postgres' pool is an EventEmitter: txmon listens for `error` when no one does (see {@link databaseOf}). */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  listenerCount?(event: 'error'): number;
}

/**
 * What txmon needs of a node-postgres pool client: `query` with `$n` parameters, with a
 * {@link PgQueryConfig}, and — without parameters — several statements in one call (their results
 * as an array, as node-postgres answers a multi-statement simple query).
 */
export interface PgPoolClientLike {
  query(text: string | PgQueryConfig, params?: unknown[]): Promise<{ rows: unknown[] }>;
  release(error?: Error | boolean): void;
  /**
   * node-postgres' client is an EventEmitter. A connection lost while checked out emits `error`
   * with no listener of the pool's attached, which would end the process: txmon listens while it
   * holds the connection, and releases a connection that emitted one as broken.
   */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
  /**
   * node-postgres' parser of a column type (`Client#getTypeParser`). With it, a unit's first and
   * last round trips are sent as one extended-protocol batch each (see {@link Batch}); without it
   * (or on a client in node-postgres' pipeline mode), as a multi-statement simple query with the
   * parameters inlined.
   */
  getTypeParser?(oid: number, format?: string): (text: string) => unknown;
}

/** What txmon needs of a PGlite instance. */
export interface PGliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  exec(text: string): Promise<unknown>;
  transaction<T>(
    fn: (tx: { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>; exec(text: string): Promise<unknown> }) => Promise<T>,
  ): Promise<T>;
  close?(): Promise<void>;
}

/** A client `txmon/postgres` accepts: a `pg` Pool or a PGlite instance. */
export type PostgresClient = PgPoolLike | PGliteLike;

/** One statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** Statements on one connection (or the pool). */
export interface Sql {
  /** One statement with `$n` parameters; its rows. */
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<R[]>;
  /** Several statements without parameters, in one call (migrations). */
  execute(text: string): Promise<void>;
}

/** Statements of a unit (see {@link Database.unit}). */
export interface UnitSql extends Sql {
  /**
   * Runs `statement` later, without waiting for it now: before the unit's next statement, or with
   * its COMMIT (in one round trip where the client allows). Its error, if any, fails the unit then.
   */
  defer(statement: Statement): void;
  /**
   * Runs `statement` with the unit's COMMIT only, after every other statement of the unit: for a
   * lock every process takes last (the decision log's head), held for the commit alone.
   */
  deferToCommit(statement: Statement): void;
}

/** Whether `sql` is a unit of work's (whose statements can be deferred to its COMMIT). */
export const isUnitSql = (sql: Sql): sql is UnitSql => typeof (sql as UnitSql).defer === 'function';

/**
 * Runs a write's last statement (an append to a log whose head or counter row stays locked until
 * COMMIT): in a unit, sent with its COMMIT; else at once, inside the caller's transaction.
 */
export async function runLast(sql: Sql, statement: Statement): Promise<void> {
  if (isUnitSql(sql)) sql.deferToCommit(statement);
  else await sql.query(statement.text, statement.params);
}

/** The database: statements, and transactions on one connection. */
export interface Database extends Sql {
  /**
   * The rows of `text`, read page by page (`pageSize` rows) through a cursor inside a read-only,
   * repeatable-read transaction on one connection: one consistent snapshot, nothing written, any
   * number of rows in bounded memory. The transaction ends when the iteration does (also early).
   */
  stream<R = Record<string, unknown>>(text: string, params: readonly unknown[], pageSize: number): AsyncIterable<R[]>;
  /** One round trip (`SELECT 1`): resolves when the database answers. */
  ping(): Promise<void>;
  /** Runs `fn` inside BEGIN … COMMIT on one connection; ROLLBACK when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` as a transaction that starts with `first` and ends with what `fn` deferred: on a `pg`
   * Pool, BEGIN travels with `first` and COMMIT with the deferred statement, one round trip each
   * (the two statements are sent as text, their parameters inlined as literals); on PGlite (no
   * network) they are plain statements of `transaction`. ROLLBACK when anything fails.
   */
  unit<T>(first: Statement, fn: (tx: UnitSql, firstRows: Record<string, unknown>[]) => Promise<T>): Promise<T>;
  /**
   * Two connections held until {@link DatabaseSession.close}: one whose session keeps what is set
   * on it (session-level advisory locks), one for units run one after the other. `null` on PGlite
   * (one session) and when the pool cannot lend two connections now.
   */
  session?(): Promise<DatabaseSession | null>;
}

/** See {@link Database.session}. */
export interface DatabaseSession {
  /** Statements on the first connection, outside any transaction. */
  readonly reads: Sql;
  /**
   * {@link Database.unit} on the second connection; without `first`, BEGIN travels with the unit's
   * first statement (one round trip fewer).
   */
  unit<T>(first: Statement | null, fn: (tx: UnitSql, firstRows: Record<string, unknown>[]) => Promise<T>): Promise<T>;
  /** Returns both connections, or drops them (`failed`: their state is unknown); idempotent. */
  close(failed: boolean): Promise<void>;
}

/** How long a session waits for its second connection before it gives up (and the caller does without). */
const SESSION_CONNECT_MS = 1_000;

/** The SQLSTATE of a database error (`pg` and PGlite both set `code`), if it has one. */
export function sqlStateOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.length === 5 ? code : undefined;
}

/**
 * A deadlock (40P01) or serialization failure (40001) means the transaction lost a race and can be
 * run again: it becomes `CONCURRENT_UPDATE`, which the engine retries (and a client may too).
 */
function retryableAs(error: unknown): unknown {
  const state = sqlStateOf(error);
  if (state === '40P01' || state === '40001')
    return new TxmonError('CONCURRENT_UPDATE', 'The database transaction lost a race with another one; try again', [], { cause: error });
  return error;
}

/**
 * SQLSTATEs of a wait past a bound: a statement cancelled by `statement_timeout` (57014), a lock
 * not granted within `lock_timeout` (55P03), a session ended by
 * `idle_in_transaction_session_timeout` (25P03).
 */
const TIMEOUT_STATES = new Set(['57014', '55P03', '25P03']);
/**
 * SQLSTATE classes where the server, not the statement, failed: connection exceptions (08),
 * insufficient resources such as too many connections (53), operator intervention such as a
 * terminated backend or a shutdown (57), system errors (58) and internal errors (XX).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
/** Socket errors of a connection that could not be made or was lost. */
const UNAVAILABLE_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'ENOENT']);
/** node-postgres' own messages for a wait past `connectionTimeoutMillis` or `query_timeout`. */
const CLIENT_TIMEOUT = /^(timeout exceeded when trying to connect|Connection terminated due to connection timeout|Query read timeout)/;
/** node-postgres' and PGlite's own messages for a connection that is gone. */
const CLIENT_GONE = /^(Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end|PGlite is closed)/;

/**
 * Whether `error` says the store itself failed (`'unavailable'`) or a wait passed its bound
 * (`'timeout'`), rather than the statement; `null` for any other error.
 */
export function storeFaultOf(error: unknown): 'unavailable' | 'timeout' | null {
  if (isTxmonError(error) || typeof error !== 'object' || error === null) return null;
  const state = sqlStateOf(error);
  if (state !== undefined) {
    if (TIMEOUT_STATES.has(state)) return 'timeout';
    return UNAVAILABLE_CLASSES.has(state.slice(0, 2)) ? 'unavailable' : null;
  }
  const errno = (error as { code?: unknown }).code;
  if (errno === 'ETIMEDOUT') return 'timeout';
  if (typeof errno === 'string' && UNAVAILABLE_ERRNOS.has(errno)) return 'unavailable';
  const message = (error as { message?: unknown }).message;
  if (typeof message !== 'string') return null;
  if (CLIENT_TIMEOUT.test(message)) return 'timeout';
  return CLIENT_GONE.test(message) ? 'unavailable' : null;
}

/**
 * The error a store call fails with: a lost race as `CONCURRENT_UPDATE`, a store fault as
 * `STORE_UNAVAILABLE` or `STORE_TIMEOUT` (503: the client may retry; the cause is kept for the
 * log), anything else as it is.
 */
export function storeErrorOf(error: unknown): unknown {
  const fault = storeFaultOf(error);
  if (fault === 'timeout') return new TxmonError('STORE_TIMEOUT', 'The database did not answer in time; try again', [], { cause: error });
  if (fault === 'unavailable') return new TxmonError('STORE_UNAVAILABLE', 'The database is unavailable; try again', [], { cause: error });
  return retryableAs(error);
}

/** Statement texts node-postgres prepares once per connection, by name. */
const PREPARED = new Map<string, string>();

/**
 * Marks `text` (a fixed statement) to be prepared once per connection on a `pg` Pool, so the
 * server parses and plans it once; returns it unchanged. PGlite runs it as any statement.
 */
export function prepared(text: string): string {
  if (!PREPARED.has(text)) PREPARED.set(text, `txmon_${PREPARED.size + 1}`);
  return text;
}

/** What node-postgres is asked for `text` and `params`: a prepared statement's config (its values inside), or the text and values. */
function pgQueryOf(text: string, params: readonly unknown[]): [string | PgQueryConfig, unknown[] | undefined] {
  const name = PREPARED.get(text);
  return name === undefined ? [text, [...params]] : [{ name, text, values: [...params] }, undefined];
}

/**
 * A parameter as an SQL literal: strings as escape strings (`E'…'`: backslashes and quotes doubled,
 * so nothing in them is read as SQL), arrays as `ARRAY[…]`, numbers as written by JavaScript.
 * The statements inlined this way carry a cast on each parameter (`$1::text[]`), which types them.
 * @throws TxmonError `INVALID_CONFIGURATION` for a NUL character or a value of another kind (never
 *   reached from txmon's statements: the engine refuses NUL in every string)
 */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'string') {
    if (value.includes('\u0000')) throw configurationError('txmon/postgres', 'a statement parameter contains a NUL character');
    return `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `ARRAY[${value.map(literalOf).join(', ')}]`;
  throw configurationError('txmon/postgres', 'a statement parameter has no literal form');
}

/** `statement` with its parameters inlined as literals (for a multi-statement simple query). */
function inlined(statement: Statement): string {
  return statement.text.replace(/\$(\d+)/g, (_m, n: string) => literalOf(statement.params[Number(n) - 1]));
}

/**
 * What node-postgres hands a custom query (a "submittable", as pg-cursor is) to write its messages:
 * the protocol messages of the extended query flow.
 */
interface PgConnectionLike {
  parse(message: { text: string; name: string; types: number[] }): void;
  bind(message: { portal: string; statement: string; values: (string | null)[] }): void;
  describe(message: { type: 'P' | 'S'; name: string }): void;
  execute(message: { portal: string; rows: number }): void;
  close(message: { type: 'P' | 'S'; name: string }): void;
  sync(): void;
  stream?: { cork?(): void; uncork?(): void };
}

/** A parameter as text in the wire format: arrays as array literals (elements quoted), null as NULL. */
function wireValueOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    return `{${value.map((v) => (v === null || v === undefined ? 'NULL' : `"${String(wireValueOf(v)).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)).join(',')}}`;
  }
  throw configurationError('txmon/postgres', 'a statement parameter has no text form');
}

/** Names of the statements a batch prepares, by text (`txmon_b<n>`, apart from {@link prepared}'s). */
const BATCH_NAMES = new Map<string, string>();
const batchNameOf = (text: string): string => {
  let name = BATCH_NAMES.get(text);
  if (name === undefined) {
    name = `txmon_b${BATCH_NAMES.size + 1}`;
    BATCH_NAMES.set(text, name);
  }
  return name;
};
/** Per connection: the batch statements it has prepared; `false` when a failed batch may have left one half-made. */
const BATCH_PREPARED = new WeakMap<object, Map<string, boolean>>();

/**
 * Several statements in one round trip on a node-postgres connection: Parse (once per connection
 * and statement) / Bind / Describe / Execute of each, then one Sync. The server runs them in order
 * and skips the rest after an error (the transaction is then aborted: the caller rolls back).
 * Parameters travel as text, never inlined, and every statement is planned once per connection.
 * Resolves with the rows of the last statement, parsed by the client's type parsers.
 */
class Batch {
  readonly text: string;
  private readonly done: Promise<Record<string, unknown>[]>;
  private settle!: { resolve: (rows: Record<string, unknown>[]) => void; reject: (error: unknown) => void };
  private fields: { name: string; parse: (text: string) => unknown }[] = [];
  private rows: Record<string, unknown>[] = [];
  /** The rows of the statement that completed last (none for one without rows: BEGIN, COMMIT, an INSERT). */
  private completed: Record<string, unknown>[] = [];
  private failed: unknown = null;
  private parsing: string[] = [];
  private prepared: Map<string, boolean> | null = null;
  /**
   * Called once the batch is done. node-postgres wraps it when it times the query
   * (`query_timeout`), and the wrapper clears that timer (else it would keep the process alive and
   * fire on a finished batch). A function from the start: some node-postgres versions call the
   * one they wrap without checking it exists.
   */
  callback: (error: unknown, rows?: Record<string, unknown>[]) => void = () => undefined;

  constructor(
    private readonly statements: readonly Statement[],
    private readonly typeParser: (oid: number, format?: string) => (text: string) => unknown,
  ) {
    this.text = statements.map((s) => s.text).join('; ');
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  /** Sends the batch on `connection` (node-postgres queues it as any query); its last statement's rows. */
  run(connection: PgPoolClientLike): Promise<Record<string, unknown>[]> {
    (connection.query as unknown as (q: Batch) => unknown)(this);
    return this.done;
  }

  /** A batch is awaitable as the promise `query` returns for other queries (wrappers that time queries await it). */
  // biome-ignore lint/suspicious/noThenProperty: a batch is awaited like the promise node-postgres returns
  then<T1 = Record<string, unknown>[], T2 = never>(
    onFulfilled?: ((rows: Record<string, unknown>[]) => T1 | PromiseLike<T1>) | null,
    onRejected?: ((error: unknown) => T2 | PromiseLike<T2>) | null,
  ): Promise<T1 | T2> {
    return this.done.then(onFulfilled, onRejected);
  }

  submit(connection: PgConnectionLike): null {
    let prepared = BATCH_PREPARED.get(connection);
    if (prepared === undefined) {
      prepared = new Map();
      BATCH_PREPARED.set(connection, prepared);
    }
    this.prepared = prepared;
    connection.stream?.cork?.();
    try {
      for (const statement of this.statements) {
        const name = batchNameOf(statement.text);
        const state = prepared.get(name);
        if (state !== true) {
          if (state === false) connection.close({ type: 'S', name });
          connection.parse({ text: statement.text, name, types: [] });
          this.parsing.push(name);
        }
        connection.bind({ portal: '', statement: name, values: statement.params.map(wireValueOf) });
        connection.describe({ type: 'P', name: '' });
        connection.execute({ portal: '', rows: 0 });
      }
      connection.sync();
    } finally {
      connection.stream?.uncork?.();
    }
    return null;
  }

  handleRowDescription(message: { fields: { name: string; dataTypeID: number; format?: string }[] }): void {
    this.fields = message.fields.map((f) => ({ name: f.name, parse: this.typeParser(f.dataTypeID, f.format === 'binary' ? 'binary' : 'text') }));
    this.rows = [];
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    const row: Record<string, unknown> = {};
    const fields = this.fields;
    for (let i = 0; i < fields.length; i++) {
      const value = message.fields[i];
      const field = fields[i] as { name: string; parse: (text: string) => unknown };
      row[field.name] = value === null || value === undefined ? null : field.parse(value);
    }
    this.rows.push(row);
  }

  handleCommandComplete(): void {
    // Each statement's rows are its own: the batch resolves with the last statement's.
    this.completed = this.rows;
    this.rows = [];
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(): void {}

  handleCopyData(): void {}

  handleError(error: unknown): void {
    // Any statement this batch parsed may or may not exist now: closed and parsed again next time.
    for (const name of this.parsing) this.prepared?.set(name, false);
    this.failed = error;
    this.settle.reject(error);
    this.callback(error);
  }

  handleReadyForQuery(): void {
    if (this.failed !== null) return;
    for (const name of this.parsing) this.prepared?.set(name, true);
    this.settle.resolve(this.completed);
    this.callback(null, this.completed);
  }
}

const BEGIN: Statement = { text: 'BEGIN', params: [] };
const COMMIT: Statement = { text: 'COMMIT', params: [] };

function isPGlite(client: PostgresClient): client is PGliteLike {
  return typeof (client as PGliteLike).transaction === 'function' && typeof (client as PGliteLike).exec === 'function';
}

function isPgPool(client: PostgresClient): client is PgPoolLike {
  return typeof (client as PgPoolLike).connect === 'function' && typeof (client as PgPoolLike).query === 'function';
}

/**
 * A unit's deferred statements, run before its next statement or at its end. With `inOneTrip` (a
 * connection that takes several statements in one round trip), the deferred ones travel with the
 * next statement; `pending` are deferred from the start (a BEGIN not sent yet).
 */
function deferring(
  sql: Sql,
  inOneTrip: ((statements: Statement[]) => Promise<Record<string, unknown>[]>) | null = null,
  pending: Statement[] = [],
): { unit: UnitSql; take: () => Statement[] } {
  let last: Statement[] = [];
  const takePending = () => {
    const out = pending;
    pending = [];
    return out;
  };
  const take = () => {
    const out = [...takePending(), ...last];
    last = [];
    return out;
  };
  const flush = async () => {
    for (const s of takePending()) await sql.query(s.text, s.params);
  };
  return {
    unit: {
      async query<R>(text: string, params: readonly unknown[] = []) {
        if (inOneTrip !== null && pending.length > 0) return guarded(async () => (await inOneTrip([...takePending(), { text, params }])) as R[]);
        await flush();
        return sql.query<R>(text, params);
      },
      async execute(text) {
        await flush();
        await sql.execute(text);
      },
      defer(statement) {
        pending.push(statement);
      },
      deferToCommit(statement) {
        last.push(statement);
      },
    },
    take,
  };
}

/** Runs `call`, failing with {@link storeErrorOf} of what it throws. */
async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw storeErrorOf(error);
  }
}

/** The {@link Database} over a PGlite instance: `unit` is a plain transaction (no round trips to save). */
function pgliteDatabase(client: PGliteLike): Database {
  type Queryable = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>; exec(text: string): Promise<unknown> };
  const sqlOf = (q: Queryable): Sql => ({
    query<R>(text: string, params: readonly unknown[] = []) {
      return guarded(async () => (await q.query(text, [...params])).rows as R[]);
    },
    execute(text) {
      return guarded(async () => void (await q.exec(text)));
    },
  });
  const transaction = <T>(fn: (tx: Sql) => Promise<T>): Promise<T> => guarded(() => client.transaction((tx) => fn(sqlOf(tx))));
  const root = sqlOf(client);
  return {
    ...root,
    ping: async () => void (await root.query('SELECT 1')),
    // PGlite has one session: the cursor's transaction holds it while the rows are read.
    stream: (text, params, pageSize) => cursorRows(root, text, params, pageSize),
    transaction,
    unit(first, fn) {
      return transaction(async (tx) => {
        const rows = await tx.query(first.text, first.params);
        const { unit, take } = deferring(tx);
        const result = await fn(unit, rows);
        for (const s of take()) await tx.query(s.text, s.params);
        return result;
      });
    },
  };
}

/** A cursor's rows, page by page, in a read-only snapshot on the session of `sql` (see `Database.stream`). */
async function* cursorRows<R>(sql: Sql, text: string, params: readonly unknown[], pageSize: number): AsyncIterable<R[]> {
  await sql.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  let open = true;
  try {
    await sql.query(`DECLARE txmon_stream NO SCROLL CURSOR FOR ${text}`, params);
    for (;;) {
      const rows = await sql.query<R>(`FETCH ${Math.max(1, Math.floor(pageSize))} FROM txmon_stream`);
      if (rows.length === 0) break;
      yield rows;
    }
    open = false;
    await sql.query('COMMIT');
  } finally {
    // Stopped early or failed: nothing was written, the snapshot is let go.
    if (open) await sql.query('ROLLBACK').catch(() => undefined);
  }
}

/** Options of {@link databaseOf}. */
export interface DatabaseOptions {
  /**
   * On a `pg` Pool: the schema every statement runs in. Each connection taken from the pool has its
   * `search_path` set to it first (when it is not already), so one pool serves several schemas —
   * several tenants — with its connections bounded by the pool's `max` whatever their number.
   */
  readonly schema?: string;
}

/** `schema` as a quoted identifier (`"txmon_acme"`), the value `search_path` is set to. */
export function quoteIdentifier(schema: string): string {
  return `"${schema.replace(/"/g, '""')}"`;
}

/** Per pooled connection, the `search_path` txmon last set on it. */
const SEARCH_PATHS = new WeakMap<object, string>();

/** Sets `connection`'s `search_path` to `searchPath` unless it is so already (`null`: left as it is). */
async function useSearchPath(connection: PgPoolClientLike, searchPath: string | null): Promise<void> {
  if (searchPath === null || SEARCH_PATHS.get(connection) === searchPath) return;
  await connection.query("SELECT set_config('search_path', $1, false)", [searchPath]);
  SEARCH_PATHS.set(connection, searchPath);
}

/**
 * A unit on `connection`: BEGIN with `first`, then `fn`, then what `fn` deferred with COMMIT (one
 * round trip each; see {@link Database.unit}). Without `first`, BEGIN travels with the unit's
 * first statement instead (or with its COMMIT when it has none). The caller rolls back when it throws.
 */
async function unitOn<T>(
  connection: PgPoolClientLike,
  first: Statement | null,
  fn: (tx: UnitSql, firstRows: Record<string, unknown>[]) => Promise<T>,
): Promise<T> {
  const sql = pgSqlOf(connection);
  // node-postgres refuses custom queries on a client in pipeline mode.
  const typeParser = (connection as { pipeline?: boolean }).pipeline === true ? undefined : connection.getTypeParser?.bind(connection);
  if (typeParser !== undefined) {
    const inOneTrip = (statements: Statement[]) => new Batch(statements, typeParser).run(connection);
    // BEGIN and the first statement in one batch, the deferred ones and COMMIT in another.
    const rows = first === null ? [] : await inOneTrip([BEGIN, first]);
    const { unit, take } = deferring(sql, inOneTrip, first === null ? [BEGIN] : []);
    const result = await fn(unit, rows);
    await inOneTrip([...take(), COMMIT]);
    return result;
  }
  // One simple query of two statements: node-postgres answers with one result per statement.
  const started = (await connection.query(`BEGIN; ${inlined(first ?? NOTHING_FIRST)}`)) as unknown as { rows: unknown[] }[];
  const { unit, take } = deferring(sql);
  const result = await fn(unit, (started[1]?.rows ?? []) as Record<string, unknown>[]);
  await connection.query([...take().map(inlined), 'COMMIT'].join('; '));
  return result;
}

/** What a unit without a first statement of its own starts with where BEGIN cannot wait. */
const NOTHING_FIRST: Statement = { text: 'SELECT 1', params: [] };

/** Statements on one `pg` connection or the pool, failing as {@link storeErrorOf} says. */
function pgSqlOf(q: PgPoolLike | PgPoolClientLike): Sql {
  return {
    query<R>(text: string, params: readonly unknown[] = []) {
      const [query, values] = pgQueryOf(text, params);
      return guarded(async () => (await q.query(query, values)).rows as R[]);
    },
    execute(text) {
      return guarded(async () => void (await q.query(text)));
    },
  };
}

/** A pool's connection, or `null` when none came within `ms` (one that comes later is returned at once). */
async function connectWithin(client: PgPoolLike, ms: number): Promise<PgPoolClientLike | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let late = false;
  const connecting = client.connect();
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    const connection = await Promise.race([connecting, timeout]);
    if (connection === null) {
      late = true;
      connecting.then(
        (c) => c.release(),
        () => undefined,
      );
    }
    return connection;
  } finally {
    clearTimeout(timer);
    if (!late) connecting.catch(() => undefined);
  }
}

/**
 * A {@link DatabaseSession} on two connections of `client`: `null` when the second does not come
 * within {@link SESSION_CONNECT_MS} (a small pool whose other connections wait for this one's
 * locks would never lend it).
 */
async function sessionOf(client: PgPoolLike, searchPath: string | null, sqlOf: (q: PgPoolClientLike) => Sql): Promise<DatabaseSession | null> {
  // node-postgres' pool says how many connections it lends at most: one cannot hold two.
  const max = (client as { options?: { max?: unknown } }).options?.max;
  if (typeof max === 'number' && max < 2) return null;
  const first = await guarded(() => client.connect());
  const second = await connectWithin(client, SESSION_CONNECT_MS).catch((error: unknown) => {
    first.release();
    throw storeErrorOf(error);
  });
  if (second === null) {
    first.release();
    return null;
  }
  const connections = [first, second];
  let lost = false;
  const onError = () => {
    lost = true;
  };
  for (const c of connections) c.on?.('error', onError);
  let closed = false;
  const close = async (failed: boolean) => {
    if (closed) return;
    closed = true;
    let drop = failed || lost;
    // Session-level locks outlive transactions: they go with the connection or with this.
    if (!drop)
      drop = await first.query('SELECT pg_advisory_unlock_all()').then(
        () => false,
        () => true,
      );
    for (const c of connections) {
      c.removeListener?.('error', onError);
      c.release(drop);
    }
  };
  try {
    for (const c of connections) await guarded(() => useSearchPath(c, searchPath));
  } catch (error) {
    await close(true);
    throw error;
  }
  // node-postgres runs one query at a time on a connection: the session's reads take turns here.
  const direct = sqlOf(first);
  let turn: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(call: () => Promise<T>): Promise<T> => {
    const run = turn.then(call, call);
    turn = run.catch(() => undefined);
    return run;
  };
  return {
    reads: {
      query: (text, params) => inTurn(() => direct.query(text, params)),
      execute: (text) => inTurn(() => direct.execute(text)),
    },
    async unit(statement, fn) {
      try {
        return await unitOn(second, statement, fn);
      } catch (error) {
        // A unit that failed leaves its transaction aborted: rolled back here, or the session is lost.
        const rolledBack = lost
          ? false
          : await second.query('ROLLBACK').then(
              () => true,
              () => false,
            );
        if (!rolledBack) lost = true;
        throw storeErrorOf(error);
      }
    },
    close,
  };
}

/** The {@link Database} over a `pg` Pool. */
function pgDatabase(client: PgPoolLike, options: DatabaseOptions): Database {
  const searchPath = options.schema === undefined ? null : quoteIdentifier(options.schema);
  // A connection lost while idle in the pool emits `error` on the pool: without a listener that
  // ends the process. The pool replaces the connection by itself.
  if (client.on !== undefined && client.listenerCount?.('error') === 0) client.on('error', () => undefined);
  const sqlOf = pgSqlOf;
  /**
   * Runs `fn` on one connection of the pool, listening for its `error` while it is held; `end` is
   * ROLLBACK on failure. A connection that emitted `error` or failed its ROLLBACK is dropped from
   * the pool.
   */
  const onConnection = async <T>(fn: (connection: PgPoolClientLike) => Promise<T>): Promise<T> => {
    const connection = await guarded(() => client.connect());
    let lost: Error | null = null;
    const onError = (error: Error) => {
      lost = error;
    };
    connection.on?.('error', onError);
    let rollbackFailed = false;
    try {
      await useSearchPath(connection, searchPath);
      return await fn(connection);
    } catch (error) {
      try {
        if (lost === null) await connection.query('ROLLBACK');
      } catch {
        // The connection is unusable: it is dropped from the pool below.
        rollbackFailed = true;
      }
      throw storeErrorOf(lost !== null && storeFaultOf(error) === null && !isTxmonError(error) ? lost : error);
    } finally {
      connection.removeListener?.('error', onError);
      connection.release(lost ?? rollbackFailed);
    }
  };
  const root: Sql =
    searchPath === null
      ? sqlOf(client)
      : {
          query: (text, params) => onConnection((connection) => sqlOf(connection).query(text, params)),
          execute: (text) => onConnection((connection) => sqlOf(connection).execute(text)),
        };
  return {
    ...root,
    ping: async () => void (await root.query('SELECT 1')),
    async *stream(text, params, pageSize) {
      const connection = await guarded(() => client.connect());
      let failed = false;
      const onError = () => {
        failed = true;
      };
      connection.on?.('error', onError);
      try {
        if (searchPath !== null) await guarded(() => connection.query("SELECT set_config('search_path', $1, false)", [searchPath]));
        SEARCH_PATHS.set(connection, searchPath ?? '');
        yield* cursorRows(sqlOf(connection), text, params, pageSize);
      } catch (error) {
        failed = true;
        throw error;
      } finally {
        connection.removeListener?.('error', onError);
        connection.release(failed);
      }
    },
    transaction(fn) {
      return onConnection(async (connection) => {
        await connection.query('BEGIN');
        const result = await fn(sqlOf(connection));
        await connection.query('COMMIT');
        return result;
      });
    },
    unit(first, fn) {
      return onConnection((connection) => unitOn(connection, first, fn));
    },
    session: () => sessionOf(client, searchPath, sqlOf),
  };
}

/**
 * The {@link Database} over `client`. Store faults surface as `STORE_UNAVAILABLE` or
 * `STORE_TIMEOUT` (see {@link storeErrorOf}), lost races as `CONCURRENT_UPDATE`.
 * @throws TxmonError `INVALID_CONFIGURATION` when `client` is neither a `pg` Pool nor a PGlite
 *   instance, or for a `schema` with PGlite (a PGlite directory is one database of its own)
 */
export function databaseOf(client: PostgresClient, options: DatabaseOptions = {}): Database {
  if (isPGlite(client)) {
    if (options.schema !== undefined) throw configurationError('txmon/postgres', 'schema applies to a pg Pool; give each PGlite database its own directory');
    return pgliteDatabase(client);
  }
  if (isPgPool(client)) return pgDatabase(client, options);
  throw configurationError('txmon/postgres', 'client must be a pg Pool or a PGlite instance');
}
