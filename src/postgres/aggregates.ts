/**
 * Windowed aggregates in SQL: every aggregate function of `AggregateQuery` answered over the
 * indexed `txmon_series_entries` table, exactly as `computeAggregate` defines it. Amounts are
 * `numeric` (scaled integers), read and written as text, never as floats. The aggregates of one
 * transaction are one statement (one round trip); a "last N entries" function reads the few rows
 * at the window's end and finishes in JavaScript, so ties are ordered exactly as the memory store
 * orders them.
 */
import type { AggregateQuery, AggregateValue, SeriesEntry, SeriesEntryRef } from '../aggregation/aggregate-store.js';
import { TxmonError } from '../errors.js';
import type { Sql } from './client.js';

/** One row of `txmon_series_entries` as read. */
interface EntryRow {
  readonly id: string;
  readonly ts: number;
  readonly amount: string | null;
  readonly vals: Record<string, string> | null;
}

/** A SeriesEntry from its row. */
export function entryOf(series: string, key: string, row: EntryRow): SeriesEntry {
  const entry = { series, key, id: row.id, timestamp: Number(row.ts), amount: row.amount === null ? null : BigInt(row.amount) };
  return row.vals === null ? entry : { ...entry, values: row.vals };
}

/** Entries ordered as the memory store orders them: by timestamp, then by id (UTF-16 order). */
export function compareEntries(a: { timestamp: number; id: string }, b: { timestamp: number; id: string }): number {
  return a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
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

const LAST_FUNCTIONS = new Set(['lastAmountCount', 'lastMin', 'lastMax']);

/** The parameters `$1…$8` of one query. */
function paramsOf(q: AggregateQuery): unknown[] {
  return [q.series, q.key, q.start, q.end, q.excludeId ?? null, q.field ?? null, q.includeValue ?? null, q.values ?? []];
}

/** The value of a scalar function from its text. */
function valueOf(fn: string, text: string | null): AggregateValue {
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

/** Checks what a function requires of a query (as the memory store does); `i` is its position. */
function assertQuery(q: AggregateQuery, i: number): void {
  if ((q.fn === 'distinct' || q.fn === 'countIn' || q.fn === 'sumIn') && q.field === undefined) {
    throw new TxmonError('VALIDATION_FAILED', `Invalid aggregate query: /${i}/field is required for ${q.fn}`, [{ path: `/${i}/field`, code: 'required', message: `is required for ${q.fn}` }]);
  }
  if (LAST_FUNCTIONS.has(q.fn) && !(Number.isInteger(q.limit) && (q.limit as number) >= 0)) {
    throw new TxmonError('VALIDATION_FAILED', `Invalid aggregate query: /${i}/limit must be a non-negative integer for ${q.fn}`, [
      { path: `/${i}/limit`, code: 'type', message: `must be a non-negative integer for ${q.fn}` },
    ]);
  }
  if (!LAST_FUNCTIONS.has(q.fn) && SCALAR_SQL[q.fn] === undefined) {
    throw new TxmonError('VALIDATION_FAILED', `Invalid aggregate query: /${i}/fn is not an aggregate function`, [{ path: `/${i}/fn`, code: 'enum', message: 'must be an aggregate function' }]);
  }
}

/** `lastAmountCount` / `lastMin` / `lastMax`: the last `limit` entries of the window, ordered exactly. */
async function lastEntries(sql: Sql, q: AggregateQuery): Promise<AggregateValue> {
  const limit = q.limit as number;
  let amounts: bigint[] = [];
  if (limit > 0) {
    // Every entry at or after the timestamp of the limit-th latest one (ties included), then exact order.
    const rows = await sql.query<EntryRow>(
      `SELECT id, ts, amount::text AS amount, NULL::jsonb AS vals FROM txmon_series_entries WHERE ${WINDOW}
         AND ts >= coalesce((SELECT ts FROM txmon_series_entries WHERE ${WINDOW} ORDER BY ts DESC OFFSET $6 - 1 LIMIT 1), '-Infinity'::double precision)`,
      [q.series, q.key, q.start, q.end, q.excludeId ?? null, limit],
    );
    const ordered = rows.map((row) => entryOf(q.series, q.key, row)).sort(compareEntries).slice(-limit);
    amounts = ordered.flatMap((e) => (e.amount === null ? [] : [e.amount]));
  }
  if (q.fn === 'lastAmountCount') return amounts.length;
  const wantMax = q.fn === 'lastMax';
  return amounts.reduce<bigint | null>((a, b) => (a === null || (wantMax ? b > a : b < a) ? b : a), null);
}

/** Answers `queries` in order: the scalar ones in one statement, each "last N" one in its own. */
export async function queryAggregates(sql: Sql, queries: readonly AggregateQuery[]): Promise<AggregateValue[]> {
  queries.forEach(assertQuery);
  const answers: AggregateValue[] = new Array<AggregateValue>(queries.length).fill(null);
  const parts: string[] = [];
  const params: unknown[] = [];
  const scalar: number[] = [];
  for (let i = 0; i < queries.length; i++) {
    const q = queries[i] as AggregateQuery;
    if (LAST_FUNCTIONS.has(q.fn)) {
      answers[i] = await lastEntries(sql, q);
      continue;
    }
    // Only the parameters a function's SQL reads are sent (an unread one has no type to infer).
    const own = paramsOf(q);
    const renumbered = new Map<number, number>();
    const text = (SCALAR_SQL[q.fn] as string).replace(/\$(\d)/g, (_m, n: string) => {
      let at = renumbered.get(Number(n));
      if (at === undefined) {
        params.push(own[Number(n) - 1]);
        at = params.length;
        renumbered.set(Number(n), at);
      }
      return `$${at}`;
    });
    parts.push(`SELECT ${scalar.length}::int AS i, (${text}) AS v`);
    scalar.push(i);
  }
  if (parts.length > 0) {
    const rows = await sql.query<{ i: number; v: string | null }>(parts.join(' UNION ALL '), params);
    for (const row of rows) {
      const position = scalar[row.i] as number;
      answers[position] = valueOf((queries[position] as AggregateQuery).fn, row.v);
    }
  }
  return answers;
}

/** Validates entries as the memory store does (each names `series`, a finite timestamp), before any change. */
export function assertEntries(entries: readonly SeriesEntry[], series: string | null, basePath: string): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as SeriesEntry;
    if (series !== null && entry.series !== series) {
      throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${basePath}/${i}/series must name the replaced series`, [
        { path: `${basePath}/${i}/series`, code: 'const', message: 'must name the replaced series' },
      ]);
    }
    if (!Number.isFinite(entry.timestamp)) {
      throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${basePath}/${i}/timestamp must be a finite number`, [
        { path: `${basePath}/${i}/timestamp`, code: 'type', message: 'must be a finite number' },
      ]);
    }
  }
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
    // The last of several entries with one (series, key, id) wins, as in the memory store.
    const last = new Map<string, SeriesEntry>();
    for (const e of add) last.set(`${e.series}\u0000${e.key}\u0000${e.id}`, e);
    const rows = [...last.values()];
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
  return rows.map((row) => entryOf(series, key, row)).sort(compareEntries);
}
