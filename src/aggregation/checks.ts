/**
 * The checks and the order every store of windowed aggregates shares — the in-process aggregate
 * store, the memory and PostgreSQL repositories, and the conformance model — so that all of them
 * refuse the same input with the same error and list entries in the same order.
 */
import { TxmonError } from '../errors.js';
import type { AggregateFunction, AggregateQuery, SeriesEntry } from './aggregate-store.js';

/** Largest `fanOut` a graph query accepts (a path search reads up to fanOut^limit edges; graph.ts). */
export const MAX_FAN_OUT = 64;
/** Largest `limit` (edges of a path) of a `hopsTo` query. */
export const MAX_HOPS = 6;

/** Every aggregate function, as {@link AggregateFunction} lists them. */
export const AGGREGATE_FUNCTIONS: ReadonlySet<AggregateFunction> = new Set<AggregateFunction>([
  'count',
  'sum',
  'amountCount',
  'min',
  'max',
  'distinct',
  'latest',
  'countIn',
  'sumIn',
  'lastAmountCount',
  'lastMin',
  'lastMax',
  'hopsTo',
  'sharedSource',
  'lastEntries',
]);

/** The largest `limit` a `lastEntries` query accepts (its answer is a list, copied per entry). */
export const MAX_LAST_ENTRIES = 1000;

/**
 * Entries in the order every store lists them: by timestamp, then by id (UTF-16 code units).
 * @example
 * ```ts
 * entries.sort(compareSeriesEntries);
 * ```
 */
export function compareSeriesEntries(a: { readonly timestamp: number; readonly id: string }, b: { readonly timestamp: number; readonly id: string }): number {
  return a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function invalidQuery(path: string, code: string, message: string): TxmonError {
  return new TxmonError('VALIDATION_FAILED', `Invalid aggregate query: ${path} ${message}`, [{ path, code, message }]);
}

/**
 * Checks what a function requires of a query: a known `fn`, a `field` for `distinct`, `countIn`
 * and `sumIn`, a non-negative integer `limit` for the `last…` functions (at most
 * {@link MAX_LAST_ENTRIES} for `lastEntries`), a `field` and bounded `fanOut` (and for `hopsTo`
 * `limit`) for the graph functions. `position` (≥ 0) is the
 * query's index in a batch, prefixed to the detail paths (−1: a single query). The paths are built
 * only on errors: queries are on the hot path.
 * @throws TxmonError `VALIDATION_FAILED` with a detail at `/<position>/fn`, `/field`, `/limit` or `/fanOut`
 */
export function assertAggregateQuery(q: AggregateQuery, position: number): void {
  const fn = q.fn;
  if ((fn === 'distinct' || fn === 'countIn' || fn === 'sumIn') && q.field === undefined) {
    throw invalidQuery(`${position < 0 ? '' : `/${position}`}/field`, 'required', `is required for ${fn}`);
  }
  if ((fn === 'lastAmountCount' || fn === 'lastMin' || fn === 'lastMax') && !(Number.isInteger(q.limit) && (q.limit as number) >= 0)) {
    throw invalidQuery(`${position < 0 ? '' : `/${position}`}/limit`, 'type', `must be a non-negative integer for ${fn}`);
  }
  if (fn === 'hopsTo' || fn === 'sharedSource') assertGraphQuery(q, position);
  if (fn === 'lastEntries' && !(Number.isInteger(q.limit) && (q.limit as number) >= 0 && (q.limit as number) <= MAX_LAST_ENTRIES)) {
    throw invalidQuery(`${position < 0 ? '' : `/${position}`}/limit`, 'maximum', `must be an integer from 0 to ${MAX_LAST_ENTRIES} for lastEntries`);
  }
  if (!AGGREGATE_FUNCTIONS.has(fn)) throw invalidQuery(`${position < 0 ? '' : `/${position}`}/fn`, 'enum', 'must be an aggregate function');
}

function isIntegerIn(value: number | undefined, min: number, max: number): boolean {
  return Number.isInteger(value) && (value as number) >= min && (value as number) <= max;
}

/** The bounds of a graph query (graph.ts): `field`, `fanOut` in [1, MAX_FAN_OUT], for `hopsTo` `limit` in [1, MAX_HOPS]. */
function assertGraphQuery(q: AggregateQuery, position: number): void {
  const at = position < 0 ? '' : `/${position}`;
  if (q.field === undefined) throw invalidQuery(`${at}/field`, 'required', `is required for ${q.fn}`);
  if (!isIntegerIn(q.fanOut, 1, MAX_FAN_OUT)) throw invalidQuery(`${at}/fanOut`, 'type', `must be an integer from 1 to ${MAX_FAN_OUT} for ${q.fn}`);
  if (q.fn === 'hopsTo' && !isIntegerIn(q.limit, 1, MAX_HOPS)) throw invalidQuery(`${at}/limit`, 'type', `must be an integer from 1 to ${MAX_HOPS} for hopsTo`);
}

/**
 * Refuses an entry timestamp that is not a finite number, at `path`.
 * @throws TxmonError `VALIDATION_FAILED` with a `type` detail at `path`
 */
export function assertEntryTimestamp(timestamp: number, path: string): void {
  if (!Number.isFinite(timestamp)) {
    throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must be a finite number`, [
      { path, code: 'type', message: 'must be a finite number' },
    ]);
  }
}

/**
 * Checks entries before any of them is applied: each has a finite timestamp and, when `series` is
 * given (a whole series being replaced), names that series. Paths are `<basePath>/<i>/…`.
 * @throws TxmonError `VALIDATION_FAILED` with a detail at `…/timestamp` or `…/series`
 */
export function assertSeriesEntries(entries: readonly SeriesEntry[], basePath: string, series?: string): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as SeriesEntry;
    if (series !== undefined && entry.series !== series) {
      const path = `${basePath}/${i}/series`;
      throw new TxmonError('VALIDATION_FAILED', `Invalid series entry: ${path} must name the replaced series`, [
        { path, code: 'const', message: 'must name the replaced series' },
      ]);
    }
    assertEntryTimestamp(entry.timestamp, `${basePath}/${i}/timestamp`);
  }
}
