/**
 * Windowed aggregates in SQL: every aggregate function of `AggregateQuery` answered over the
 * indexed `txmon_series_entries` table, exactly as `computeAggregate` defines it. Amounts are
 * `numeric` (scaled integers), read and written as text, never as floats. The aggregates of one
 * transaction are one statement (one round trip), its "last N entries" functions one more, which
 * reads the few rows at each window's end and finishes in JavaScript, so ties are ordered exactly as the memory store
 * orders them.
 */
import type { AggregateQuery, AggregateValue, SeriesEntry, SeriesEntryRef } from '../aggregation/aggregate-store.js';
import { assertAggregateQuery, compareSeriesEntries } from '../aggregation/checks.js';
import {
  countSharedSource,
  counterpartiesOf,
  expandHopsSearch,
  hopsSearchGoesOn,
  isGraphFunction,
  startHopsSearch,
  type EdgeReader,
} from '../aggregation/graph.js';
import type { AggregateRepository } from '../engine/repositories.js';
import { assertSeriesEntries } from '../aggregation/checks.js';
import { prepared, type Database, type Sql } from './client.js';

/** One row of `txmon_series_entries` as read. */
interface EntryRow {
  readonly id: string;
  readonly ts: number;
  readonly amount: string | null;
  readonly vals: Record<string, string> | null;
}

/** A SeriesEntry from its row. */
export function entryOf(series: string, key: string, row: EntryRow): SeriesEntry {
  const id = row.id;
  const timestamp = Number(row.ts);
  const amount = row.amount === null ? null : BigInt(row.amount);
  // Literals, not a spread: windows are read by the thousand.
  return row.vals === null ? { series, key, id, timestamp, amount } : { series, key, id, timestamp, amount, values: row.vals };
}

const WINDOW = 'series = $1 AND key = $2 AND ts >= $3 AND ts <= $4 AND ($5::text IS NULL OR id <> $5)';

/** The SQL of one scalar aggregate over the window `$1…$5` (field `$6`, include `$7`, values `$8`), as text. */
const SCALAR_SQL: Readonly<Record<string, string>> = {
  count: `SELECT count(*)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  sum: `SELECT coalesce(sum(amount), 0)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  amountCount: `SELECT count(amount)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  min: `SELECT min(amount)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  max: `SELECT max(amount)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  latest: `SELECT max(ts)::text AS v FROM txmon_series_entries WHERE ${WINDOW}`,
  distinct: `SELECT count(*)::text AS v FROM (SELECT vals->>$6::text AS d FROM txmon_series_entries WHERE ${WINDOW} AND coalesce(vals->>$6::text, '') <> '' UNION SELECT $7::text WHERE coalesce($7::text, '') <> '') AS seen`,
  countIn: `SELECT count(*)::text AS v FROM txmon_series_entries WHERE ${WINDOW} AND vals->>$6::text = ANY($8::text[])`,
  sumIn: `SELECT coalesce(sum(amount), 0)::text AS v FROM txmon_series_entries WHERE ${WINDOW} AND vals->>$6::text = ANY($8::text[])`,
};

const LAST_FUNCTIONS = new Set(['lastAmountCount', 'lastMin', 'lastMax', 'lastEntries']);

/** The parameters `$1…$8` of one query. */
function paramsOf(q: AggregateQuery): unknown[] {
  return [q.series, q.key, q.start, q.end, q.excludeId ?? null, q.field ?? null, q.includeValue ?? null, q.values ?? []];
}

/** The value of a scalar function from its text. */
function aggregateValueOf(fn: string, text: string | null): AggregateValue {
  switch (fn) {
    case 'count':
    case 'amountCount':
    case 'distinct':
    case 'countIn':
      return Number(text ?? 0);
    case 'sum':
    case 'sumIn':
      return BigInt(text ?? '0');
    case 'latest':
      return text === null ? null : Number(text);
    default:
      return text === null ? null : BigInt(text);
  }
}

/**
 * The entries of several "last N" queries, in one statement: per query, the limit latest entries
 * of its window and those tied with the last of them (one backward scan of the (series, key, ts)
 * index); ordered and cut here exactly as the memory store orders them (ties by id). Values are
 * read for `lastEntries`, the one function that returns them.
 */
async function readLastEntries(sql: Sql, queries: readonly AggregateQuery[]): Promise<SeriesEntry[][]> {
  const asked = lastAsked(queries);
  if (asked.length === 0) return queries.map((): SeriesEntry[] => []);
  const rows = await sql.query<EntryRow & { i: number }>(LAST_ENTRIES_SQL, lastParams(queries, asked));
  return lastEntriesOf(queries, asked, rows);
}

/** The positions of `queries` that ask for entries (a limit above 0). */
function lastAsked(queries: readonly AggregateQuery[]): number[] {
  return queries.flatMap((q, i) => ((q.limit as number) > 0 ? [i] : []));
}

/** The seven arrays of {@link LAST_ENTRIES_SQL} for the queries at `asked`. */
function lastParams(queries: readonly AggregateQuery[], asked: readonly number[]): unknown[] {
  const column = <T>(f: (q: AggregateQuery) => T) => asked.map((i) => f(queries[i] as AggregateQuery));
  return [
    column((q) => q.series),
    column((q) => q.key),
    column((q) => String(q.start)),
    column((q) => String(q.end)),
    column((q) => q.excludeId ?? null),
    column((q) => String(q.limit)),
    column((q) => q.fn === 'lastEntries'),
  ];
}

/** Each query's entries from the rows of {@link LAST_ENTRIES_SQL} (`i`: 1-based in `asked`), ordered and cut as the memory store does. */
function lastEntriesOf(queries: readonly AggregateQuery[], asked: readonly number[], rows: readonly (EntryRow & { i: number })[]): SeriesEntry[][] {
  const out = queries.map((): SeriesEntry[] => []);
  for (const row of rows) {
    const at = asked[row.i - 1] as number;
    const q = queries[at] as AggregateQuery;
    (out[at] as SeriesEntry[]).push(entryOf(q.series, q.key, row));
  }
  return out.map((entries, i) => entries.sort(compareSeriesEntries).slice(-((queries[i] as AggregateQuery).limit as number)));
}

const LAST_ENTRIES_TEXT = `SELECT q.i::integer AS i, e.id, e.ts, e.amount::text AS amount, CASE WHEN q.with_values THEN e.vals END AS vals
  FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[])
    WITH ORDINALITY AS q(series, key, lo, hi, exclude, lim, with_values, i)
  CROSS JOIN LATERAL (
    SELECT x.id, x.ts, x.amount, x.vals FROM txmon_series_entries x
      WHERE x.series = q.series AND x.key = q.key AND x.ts >= q.lo::double precision AND x.ts <= q.hi::double precision
        AND (q.exclude IS NULL OR x.id <> q.exclude)
      ORDER BY x.ts DESC FETCH FIRST (q.lim::integer) ROWS WITH TIES
  ) AS e`;
const LAST_ENTRIES_SQL = prepared(LAST_ENTRIES_TEXT);

/** Where the "last N" rows start in `i` when they share a statement with the window rows (below every special's). */
const LAST_ROWS_BASE = -1_000_000_000;

/**
 * {@link LAST_ENTRIES_SQL} in the columns of a window row, to follow the window aggregates in one
 * statement (one round trip): `i` below {@link LAST_ROWS_BASE}, the entry's id in `n`, its timestamp
 * in `s` (float8 text: exact), its amount in `c` and its values (jsonb text) in `lo`; its seven
 * arrays numbered from `$${first}`.
 */
function lastEntriesAsWindowRows(first: number): string {
  const select = LAST_ENTRIES_TEXT.replace(
    'SELECT q.i::integer AS i, e.id, e.ts, e.amount::text AS amount, CASE WHEN q.with_values THEN e.vals END AS vals',
    `SELECT (${LAST_ROWS_BASE} - q.i)::int, e.id::text, e.ts::text, e.amount::text, (CASE WHEN q.with_values THEN e.vals END)::text, NULL::text, NULL::text`,
  );
  return select.replace(/\$(\d)\b/g, (_m, n: string) => `$${first + Number(n) - 1}`);
}

/** `lastAmountCount` / `lastMin` / `lastMax` / `lastEntries` over the ordered last entries of the window. */
function lastValueOf(q: AggregateQuery, ordered: readonly SeriesEntry[]): AggregateValue {
  if (q.fn === 'lastEntries') {
    return ordered.map((e) =>
      e.values === undefined
        ? { id: e.id, timestamp: e.timestamp, amount: e.amount }
        : { id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values },
    );
  }
  const amounts = ordered.flatMap((e) => (e.amount === null ? [] : [e.amount]));
  if (q.fn === 'lastAmountCount') return amounts.length;
  const wantMax = q.fn === 'lastMax';
  return amounts.reduce<bigint | null>((a, b) => (a === null || (wantMax ? b > a : b < a) ? b : a), null);
}

/** The capped edges of one key: timestamps and targets, oldest first. */
interface KeyEdges {
  readonly timestamps: number[];
  readonly targets: (string | undefined)[];
}

/**
 * The last `fanOut` entries of the window of each key of `keys` (graph.ts's capped edges), in one
 * statement: per key, its fanOut latest entries and those tied with the last of them (one backward
 * scan of the (series, key, ts) index), then ordered and cut here exactly as the memory store
 * orders them. Adds them to `edges`.
 */
async function readCappedEdges(sql: Sql, q: AggregateQuery, keys: readonly string[], edges: Map<string, KeyEdges>): Promise<void> {
  if (keys.length === 0) return;
  const window = 'series = $1 AND key = k.key AND ts >= $3 AND ts <= $4 AND ($5::text IS NULL OR id <> $5)';
  const rows = await sql.query<{ key: string; id: string; ts: number; v: string | null }>(
    `SELECT k.key, e.id, e.ts, e.v FROM unnest($2::text[]) AS k(key) CROSS JOIN LATERAL (
       SELECT id, ts, vals->>$6::text AS v FROM txmon_series_entries WHERE ${window} ORDER BY ts DESC FETCH FIRST ($7::integer) ROWS WITH TIES
     ) AS e`,
    [q.series, keys, q.start, q.end, q.excludeId ?? null, q.field, q.fanOut],
  );
  const byKey = new Map<string, { id: string; timestamp: number; target: string | undefined }[]>();
  for (const row of rows) {
    let list = byKey.get(row.key);
    if (list === undefined) {
      list = [];
      byKey.set(row.key, list);
    }
    list.push({ id: row.id, timestamp: Number(row.ts), target: row.v === null || row.v === '' ? undefined : row.v });
  }
  for (const key of keys) {
    const list = (byKey.get(key) ?? []).sort(compareSeriesEntries).slice(-(q.fanOut as number));
    edges.set(key, { timestamps: list.map((e) => e.timestamp), targets: list.map((e) => e.target) });
  }
}

/** An {@link EdgeReader} over edges read before. */
function readerOf(edges: ReadonlyMap<string, KeyEdges>): EdgeReader {
  return (key, visit) => {
    const held = edges.get(key);
    if (held === undefined) return;
    for (let i = 0; i < held.timestamps.length; i++) visit(held.timestamps[i] as number, held.targets[i]);
  };
}

/**
 * `hopsTo` / `sharedSource`: the steps of graph.ts, each layer's keys read in one statement before
 * it runs (a path search at most `limit` statements, `sharedSource` two), each key once.
 */
async function graphAggregate(sql: Sql, q: AggregateQuery): Promise<number> {
  const edges = new Map<string, KeyEdges>();
  const read = readerOf(edges);
  const unread = (keys: Iterable<string>) => [...keys].filter((key) => !edges.has(key));
  if (q.fn === 'hopsTo') {
    const search = startHopsSearch(q);
    while (hopsSearchGoesOn(search, q)) {
      await readCappedEdges(sql, q, unread(search.frontier.keys()), edges);
      if (expandHopsSearch(search, read)) return search.depth;
    }
    return 0;
  }
  await readCappedEdges(sql, q, [q.key], edges);
  const counterparties = counterpartiesOf(q, read);
  await readCappedEdges(sql, q, unread(counterparties.keys()), edges);
  return countSharedSource(q, counterparties, read);
}

/** The functions {@link WINDOWS_SQL} answers: every one a pass over the window computes. */
const WINDOW_FUNCTIONS = new Set(['count', 'sum', 'amountCount', 'min', 'max', 'latest']);

/**
 * One pass per distinct window (series, key, start, end, excluded id), whatever the functions asked
 * of it: `txmon_window_aggregates` (migration 3) computes the count, sum, amount count, min, max and
 * latest timestamp together, as text. Further "special" subqueries are appended with UNION ALL.
 */
const WINDOWS_SQL = prepared('SELECT * FROM txmon_window_aggregates($1::text[], $2::text[], $3::text[], $4::text[], $5::text[])');

/** A row of {@link WINDOWS_SQL}, or of a special subquery (its value in `n`). */
interface WindowRow {
  i: number;
  n: string | null;
  s: string | null;
  c: string | null;
  lo: string | null;
  hi: string | null;
  l: string | null;
}

/** The text of `fn`'s value in a row of {@link WINDOWS_SQL}. */
function windowText(fn: string, row: WindowRow): string | null {
  switch (fn) {
    case 'count':
      return row.n;
    case 'sum':
      return row.s;
    case 'amountCount':
      return row.c;
    case 'min':
      return row.lo;
    case 'max':
      return row.hi;
    default:
      return row.l;
  }
}

/**
 * Answers `queries` in order, in one statement: one pass per distinct window for the common
 * functions, one subquery each for `distinct`, `countIn` and `sumIn`; the "last N" queries in one more;
 * each graph query in one statement per layer of keys it reads.
 */
export async function queryAggregates(sql: Sql, queries: readonly AggregateQuery[]): Promise<AggregateValue[]> {
  queries.forEach(assertAggregateQuery);
  const answers: AggregateValue[] = new Array<AggregateValue>(queries.length).fill(null);
  // Distinct windows, in first-asked order; each query's window (1-based, as WITH ORDINALITY counts).
  const windows = new Map<string, number>();
  const columns: [string[], string[], string[], string[], (string | null)[]] = [[], [], [], [], []];
  const windowOf: number[] = new Array<number>(queries.length).fill(0);
  const special: string[] = [];
  const params: unknown[] = [];
  const last: number[] = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i] as AggregateQuery;
    if (LAST_FUNCTIONS.has(q.fn)) {
      last.push(i);
      continue;
    }
    if (isGraphFunction(q.fn)) {
      answers[i] = await graphAggregate(sql, q);
      continue;
    }
    if (WINDOW_FUNCTIONS.has(q.fn)) {
      // Timestamps as text: String() of a number is exact, and '-Infinity' is a float8.
      const start = String(q.start);
      const end = String(q.end);
      const exclude = q.excludeId ?? null;
      const key = JSON.stringify([q.series, q.key, start, end, exclude]);
      let at = windows.get(key);
      if (at === undefined) {
        columns[0].push(q.series);
        columns[1].push(q.key);
        columns[2].push(start);
        columns[3].push(end);
        columns[4].push(exclude);
        at = columns[0].length;
        windows.set(key, at);
      }
      windowOf[i] = at;
      continue;
    }
    // Only the parameters a function's SQL reads are sent (an unread one has no type to infer);
    // they are numbered after the five arrays of WINDOWS_SQL.
    const own = paramsOf(q);
    const renumbered = new Map<number, number>();
    const text = (SCALAR_SQL[q.fn] as string).replace(/\$(\d)/g, (_m, n: string) => {
      let at = renumbered.get(Number(n));
      if (at === undefined) {
        params.push(own[Number(n) - 1]);
        at = params.length + 5;
        renumbered.set(Number(n), at);
      }
      return `$${at}`;
    });
    special.push(`SELECT ${-(i + 1)}::int, (${text}), NULL::text, NULL::text, NULL::text, NULL::text, NULL::text`);
  }
  const lastQueries = last.map((i) => queries[i] as AggregateQuery);
  const lastAsks = lastAsked(lastQueries);
  let lastRows: (EntryRow & { i: number })[] | null = null;
  if (windows.size > 0 || special.length > 0) {
    const parts = [WINDOWS_SQL, ...special];
    const values: unknown[] = [...columns, ...params];
    // The "last N" reads travel in the same statement: one round trip for every read of a plan.
    if (lastAsks.length > 0) {
      parts.push(lastEntriesAsWindowRows(values.length + 1));
      values.push(...lastParams(lastQueries, lastAsks));
      lastRows = [];
    }
    const rows = await sql.query<WindowRow>(parts.length === 1 ? WINDOWS_SQL : parts.join(' UNION ALL '), values);
    const byWindow = new Map<number, WindowRow>();
    for (const row of rows) {
      if (row.i > 0) byWindow.set(row.i, row);
      else if (row.i <= LAST_ROWS_BASE - 1) {
        (lastRows as (EntryRow & { i: number })[]).push({
          i: LAST_ROWS_BASE - row.i,
          id: row.n as string,
          ts: Number(row.s),
          amount: row.c,
          vals: row.lo === null ? null : (JSON.parse(row.lo) as Record<string, string>),
        });
      } else answers[-row.i - 1] = aggregateValueOf((queries[-row.i - 1] as AggregateQuery).fn, row.n);
    }
    for (let i = 0; i < queries.length; i++) {
      if (windowOf[i] === 0) continue;
      const fn = (queries[i] as AggregateQuery).fn;
      answers[i] = aggregateValueOf(fn, windowText(fn, byWindow.get(windowOf[i] as number) as WindowRow));
    }
  }
  if (last.length > 0) {
    const entries = lastRows === null ? await readLastEntries(sql, lastQueries) : lastEntriesOf(lastQueries, lastAsks, lastRows);
    last.forEach((position, j) => {
      answers[position] = lastValueOf(lastQueries[j] as AggregateQuery, entries[j] as SeriesEntry[]);
    });
  }
  return answers;
}

/** `add` with one entry per (series, key, id): the last of several wins, as in the memory store. */
function lastOfEach(add: readonly SeriesEntry[]): SeriesEntry[] {
  const last = new Map<string, SeriesEntry>();
  for (const e of add) last.set(`${e.series}\u0000${e.key}\u0000${e.id}`, e);
  return [...last.values()];
}

/**
 * The rows of `add` for `txmon_save_outcome`, `[series, key, id, ts, amount, values]` (amount as
 * text, exact); the last of several entries with one (series, key, id) wins, as in the memory store.
 */
export function entryRowsOf(add: readonly SeriesEntry[]): unknown[][] {
  return lastOfEach(add).map((e) => [e.series, e.key, e.id, e.timestamp, e.amount === null ? null : e.amount.toString(), e.values ?? null]);
}

/**
 * The rows of {@link entryRowsOf} as `txmon_save_creations` takes them: each entry's values as the
 * position of its document in `vals`, where the values the series of one side of a transaction
 * share (one object) are once.
 */
export function creationEntriesOf(add: readonly SeriesEntry[]): { rows: unknown[][]; vals: unknown[] } {
  const vals: unknown[] = [];
  const positions = new Map<object, number>();
  const rows: unknown[][] = [];
  for (const e of lastOfEach(add)) {
    let at: number | null = null;
    if (e.values !== undefined && e.values !== null) {
      at = positions.get(e.values) ?? null;
      if (at === null) {
        at = vals.length;
        vals.push(e.values);
        positions.set(e.values, at);
      }
    }
    rows.push([e.series, e.key, e.id, e.timestamp, e.amount === null ? null : e.amount.toString(), at]);
  }
  return { rows, vals };
}

/** Removes `remove`, then inserts or replaces `add` (two statements; none when empty). */
export async function applyEntries(sql: Sql, remove: readonly SeriesEntryRef[], add: readonly SeriesEntry[]): Promise<void> {
  if (remove.length > 0) {
    await sql.query(
      'DELETE FROM txmon_series_entries e USING unnest($1::text[], $2::text[], $3::text[]) AS r(series, key, id) WHERE e.series = r.series AND e.key = r.key AND e.id = r.id',
      [remove.map((r) => r.series), remove.map((r) => r.key), remove.map((r) => r.id)],
    );
  }
  if (add.length > 0) {
    const rows = lastOfEach(add);
    await sql.query(
      `INSERT INTO txmon_series_entries (series, key, id, ts, amount, vals)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::float8[], $5::numeric[], $6::jsonb[])
       ON CONFLICT (series, key, id) DO UPDATE SET ts = excluded.ts, amount = excluded.amount, vals = excluded.vals`,
      [
        rows.map((e) => e.series),
        rows.map((e) => e.key),
        rows.map((e) => e.id),
        rows.map((e) => e.timestamp),
        rows.map((e) => (e.amount === null ? null : e.amount.toString())),
        rows.map((e) => (e.values === undefined ? null : JSON.stringify(e.values))),
      ],
    );
  }
}

/** The entries of one (series, key), ordered by (timestamp, id). */
export async function entriesOf(sql: Sql, series: string, key: string): Promise<SeriesEntry[]> {
  const rows = await sql.query<EntryRow>('SELECT id, ts, amount::text AS amount, vals FROM txmon_series_entries WHERE series = $1 AND key = $2', [series, key]);
  return rows.map((row) => entryOf(series, key, row)).sort(compareSeriesEntries);
}
/** The windowed aggregates over `sql` (`db` opens a transaction for a multi-statement write outside a unit). */
export function createPostgresAggregates(sql: Sql, db: Database | null): AggregateRepository {
  return {
    queryAggregates: (queries) => queryAggregates(sql, queries),
    listEntries: (series, key) => entriesOf(sql, series, key),
    replaceSeries(series, entries) {
      assertSeriesEntries(entries, '', series);
      const replace = async (tx: Sql) => {
        await tx.query('DELETE FROM txmon_series_entries WHERE series = $1', [series]);
        await tx.query('DELETE FROM txmon_series_retention WHERE series = $1', [series]);
        await applyEntries(tx, [], entries);
      };
      return db === null ? replace(sql) : db.transaction(replace);
    },
    pruneSeries(horizons) {
      const series = [...horizons.keys()];
      const at = series.map((s) => horizons.get(s) as number);
      const prune = async (tx: Sql) => {
        const rows = await tx.query<{ dropped: string }>(
          `WITH h AS (SELECT * FROM unnest($1::text[], $2::float8[]) AS h(series, horizon)),
             kept AS (
               INSERT INTO txmon_series_retention (series, retained_from) SELECT series, horizon FROM h
               ON CONFLICT (series) DO UPDATE SET retained_from = GREATEST(txmon_series_retention.retained_from, excluded.retained_from)
             ),
             gone AS (DELETE FROM txmon_series_entries e USING h WHERE e.series = h.series AND e.ts < h.horizon RETURNING 1)
           SELECT count(*) AS dropped FROM gone`,
          [series, at],
        );
        return Number(rows[0]?.dropped ?? 0);
      };
      return db === null ? prune(sql) : db.transaction(prune);
    },
    async getRetentionHorizons() {
      const rows = await sql.query<{ series: string; retained_from: number }>('SELECT series, retained_from FROM txmon_series_retention');
      return new Map(rows.map((r) => [r.series, Number(r.retained_from)]));
    },
  };
}
