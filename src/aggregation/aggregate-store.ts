/**
 * Windowed aggregates over many series and keys: a series is one kind of history (e.g. "sending
 * transactions of a user"), a key one member of it (a user id). Each (series, key) holds a
 * {@link WindowIndex}; see window-index.ts for the costs of each query.
 *
 * {@link computeAggregate} is the brute-force reference that every incremental answer must equal
 * (guarantee 5, docs/guarantees.md#windows).
 */
import { TxmonError } from '../errors.js';
import { assertAggregateQuery, assertSeriesEntries, compareSeriesEntries } from './checks.js';
import { isGraphFunction, referenceGraphAggregate, searchHops, searchSharedSource, type EdgeReader } from './graph.js';
import { createWindowIndex, type WindowEntry, type WindowIndex } from './window-index.js';

/** One entry of one key's history in one series. */
export interface SeriesEntry {
  /** The kind of history, e.g. `origin-user`. */
  readonly series: string;
  /** The member of the series, e.g. a user id. */
  readonly key: string;
  /** Unique within (series, key), e.g. the transaction id. */
  readonly id: string;
  /** Epoch ms (UTC); fractional ms allowed. */
  readonly timestamp: number;
  /** Exact amount in scaled integer units, or `null` when the entry has none. */
  readonly amount: bigint | null;
  /** String attributes for distinct counts; empty strings are ignored. */
  readonly values?: Readonly<Record<string, string>>;
}

/** Identifies one entry for removal. */
export interface SeriesEntryRef {
  readonly series: string;
  readonly key: string;
  readonly id: string;
}

/**
 * What a query computes over the entries of a window:
 * `count` entries; `sum` of amounts (exact, `bigint`); `amountCount` entries with an amount (the
 * divisor of an average); `min`/`max` amount (`null` when none); `distinct` non-empty values of
 * `field`; `latest` timestamp (`null` when none); `countIn` entries whose `values[field]` is one of
 * `values`; `sumIn` the amounts of those entries (exact, `bigint`); `lastAmountCount`, `lastMin`,
 * `lastMax`: `amountCount`, `min`, `max` over only the last `limit` entries of the window (the
 * latest by timestamp, then id; `excludeId` skipped) — "the user's last N transactions";
 * `lastEntries`: those last `limit` entries themselves (at most `MAX_LAST_ENTRIES` (1,000)), for a
 * rule that must match individual amounts rather than totals.
 *
 * Graph functions read several keys of the series, an entry of key `a` with `values[field]` = `b`
 * being an edge a → b, each key contributing only its last `fanOut` entries of the window (see
 * graph.ts): `hopsTo` the number of edges of the shortest strictly time-increasing path from `key`
 * to one of `values` within `limit` edges (0 when none); `sharedSource` the largest number of the
 * key's counterparties (`includeValue` counting as one at `end`) that each had one common
 * counterparty of their own earlier than their latest edge with the key (0 when none).
 */
export type AggregateFunction =
  | 'count'
  | 'sum'
  | 'amountCount'
  | 'min'
  | 'max'
  | 'distinct'
  | 'latest'
  | 'countIn'
  | 'sumIn'
  | 'lastAmountCount'
  | 'lastMin'
  | 'lastMax'
  | 'lastEntries'
  | 'hopsTo'
  | 'sharedSource';

/** One windowed aggregate over the closed interval [start, end] of one (series, key). */
export interface AggregateQuery {
  readonly series: string;
  readonly key: string;
  /** Window start (inclusive), epoch ms. */
  readonly start: number;
  /** Window end (inclusive), epoch ms. */
  readonly end: number;
  readonly fn: AggregateFunction;
  /** The `values` field read by `distinct`, `countIn` and `sumIn`; required for them, ignored otherwise. */
  readonly field?: string | undefined;
  /** An entry id to leave out (e.g. the current transaction, when it must not count). */
  readonly excludeId?: string | undefined;
  /**
   * For `distinct`: a value to count as present in the window too (the current transaction's own
   * value, whose new version is not stored yet). Ignored for the other functions.
   */
  readonly includeValue?: string | undefined;
  /** For `countIn` / `sumIn`: count (sum) the entries whose `values[field]` is one of these. */
  readonly values?: readonly string[] | undefined;
  /**
   * For `lastAmountCount` / `lastMin` / `lastMax` / `lastEntries` (required): how many of the latest entries of
   * the window to look at, a non-negative integer. The window's entries other than `excludeId` are
   * taken in (timestamp, id) order from its end.
   */
  readonly limit?: number | undefined;
  /**
   * For `hopsTo` / `sharedSource` (required): how many of the latest entries of the window each
   * key contributes as edges, an integer in [1, 64] (`MAX_FAN_OUT`). `hopsTo` also requires `limit`
   * in [1, 6] (`MAX_HOPS`): the most edges of a path.
   */
  readonly fanOut?: number | undefined;
}

/**
 * One entry of a `lastEntries` answer: a stored entry without its series and key (the query names
 * them). `values` is present only when the entry carries values.
 */
export type AggregateEntry = WindowEntry;

/**
 * `count`/`amountCount`/`distinct`/`countIn`/`lastAmountCount`/`hopsTo`/`sharedSource` → `number`;
 * `sum`/`sumIn` → `bigint`; `min`/`max`/`lastMin`/`lastMax` → `bigint | null`; `latest` → `number | null`;
 * `lastEntries` → a list of {@link AggregateEntry}, oldest first (never `null`). Only
 * `lastEntries` answers a list, so a reader of any other function may treat the value as a scalar.
 */
export type AggregateValue = number | bigint | null | readonly AggregateEntry[];

/**
 * Mutable windowed aggregates of many (series, key) histories. Owned by an adapter; not safe for
 * concurrent writers (serialise `apply` calls).
 */
export interface AggregateStore {
  /**
   * Removes the `remove` entries (missing ones are ignored), then upserts the `add` entries (an
   * entry with the id of a held one replaces it). All `add` entries are checked before anything
   * changes.
   * @throws TxmonError `VALIDATION_FAILED` (detail path `/add/<i>/timestamp`) when a timestamp is not finite
   */
  apply(remove: readonly SeriesEntryRef[], add: readonly SeriesEntry[]): void;
  /**
   * One aggregate; an unknown (series, key) is an empty history.
   * @throws TxmonError `VALIDATION_FAILED` (detail path `/field`) for `distinct`, `countIn` or
   *   `sumIn` without `field`; (`/limit`) for a `last…` function without a non-negative integer `limit`;
   *   (`/fn`) for an unknown function
   */
  query(q: AggregateQuery): AggregateValue;
  /**
   * Several aggregates, answers in the order of `qs`.
   * @throws TxmonError `VALIDATION_FAILED` as {@link AggregateStore.query}, with the query's index
   *   in the path (`/<i>/field`, `/<i>/limit`, `/<i>/fn`)
   */
  queryMany(qs: readonly AggregateQuery[]): AggregateValue[];
  /** The entries of one (series, key), ordered by (timestamp, id); a new array. For tests and brute force. */
  entries(series: string, key: string): readonly SeriesEntry[];
  /**
   * Drops every entry older than `timestamp` in every key of `series`, or of every series held
   * when `series` is not given (keys left empty are forgotten); returns how many. Queries whose
   * `start` is at or after the highest horizon passed for their series stay exact. Costs
   * O(keys + dropped entries).
   */
  pruneBefore(timestamp: number, series?: string): number;
  /** Per series pruned since it was last filled whole: the highest horizon passed (see {@link AggregateStore.pruneBefore}). */
  retainedFrom(): ReadonlyMap<string, number>;
  /** Forgets every key and entry of `series` (and its prune horizon: what is added next is its whole history). */
  dropSeries(series: string): void;
  /** Entries read as edges by graph queries over the store's life: a cost counter for tests and benchmarks. */
  readonly scannedEdges: number;
}

/**
 * A key with few entries that was never queried: a plain list instead of a full {@link WindowIndex}
 * (an index costs ~5 KB and several µs to create; a pair series creates a key per new pair).
 * It becomes an index on its first query or past {@link LIGHT_MAX} entries.
 */
class LightSlot {
  /** Tells a light slot from an index by a field read (an index has no such field). */
  readonly light = true;
  constructor(public entries: WindowEntry[]) {}

  /** Position of the entry `id`, −1 when absent. */
  find(id: string): number {
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) if ((entries[i] as WindowEntry).id === id) return i;
    return -1;
  }
}
type Slot = WindowIndex | LightSlot;
const LIGHT_MAX = 16;

function isLight(slot: Slot): slot is LightSlot {
  return (slot as { readonly light?: boolean }).light === true;
}

function isReplaced(ref: SeriesEntryRef, add: readonly SeriesEntry[]): boolean {
  for (let a = 0; a < add.length; a++) {
    const e = add[a] as SeriesEntry;
    if (e.id === ref.id && e.key === ref.key && e.series === ref.series) return true;
  }
  return false;
}

function copyEntry(entry: SeriesEntry): WindowEntry {
  return entry.values === undefined
    ? { id: entry.id, timestamp: entry.timestamp, amount: entry.amount }
    : { id: entry.id, timestamp: entry.timestamp, amount: entry.amount, values: entry.values };
}

/**
 * Creates an empty {@link AggregateStore} (a Map of series → Map of key → {@link WindowIndex}).
 *
 * @example
 * ```ts
 * const store = createAggregateStore();
 * store.apply([], [{ series: 'origin', key: 'u1', id: 't1', timestamp: 1_700_000_000_000, amount: 500_000_000n }]);
 * store.query({ series: 'origin', key: 'u1', start: 1_699_913_600_000, end: 1_700_000_000_000, fn: 'sum' }); // 500_000_000n
 * ```
 */
export function createAggregateStore(): AggregateStore {
  const bySeries = new Map<string, Map<string, Slot>>();
  /** Per series, the highest prune horizon since it was last dropped. */
  const horizons = new Map<string, number>();
  /** Answers queries on unknown keys; never written to. */
  const empty = createWindowIndex();
  // queryMany's per-batch lookup cache (see there).
  const seenSeries: string[] = [];
  const seenKeys: string[] = [];
  const seenIndexes: WindowIndex[] = [];

  /** The key's full index, upgrading a light slot on first need. */
  function indexOf(series: string, key: string): WindowIndex | undefined {
    const keys = bySeries.get(series);
    const slot = keys?.get(key);
    if (slot === undefined || !isLight(slot)) return slot;
    const index = createWindowIndex();
    const horizon = horizons.get(series);
    if (horizon !== undefined) index.pruneBefore(horizon);
    for (const e of slot.entries) index.upsert(e);
    (keys as Map<string, Slot>).set(key, index);
    return index;
  }

  function forget(series: string, key: string): void {
    const keys = bySeries.get(series);
    if (keys === undefined) return;
    keys.delete(key);
    if (keys.size === 0) bySeries.delete(series);
  }

  function run(q: AggregateQuery, position: number, found?: WindowIndex): AggregateValue {
    assertAggregateQuery(q, position);
    if (isGraphFunction(q.fn)) return queryGraph(q);
    return queryIndex(found ?? indexOf(q.series, q.key) ?? empty, q, position);
  }

  let scannedEdges = 0;

  /**
   * A graph query over the series' keys. Keys are read where they are: a light slot is not made an
   * index (a path search touches many keys that are never asked anything else).
   */
  function queryGraph(q: AggregateQuery): number {
    const keys = bySeries.get(q.series);
    const { start, end, excludeId } = q;
    const fanOut = q.fanOut as number;
    const field = q.field as string;
    const read: EdgeReader = (key, visit) => {
      const slot = keys?.get(key);
      if (slot === undefined) return;
      if (!isLight(slot)) {
        const before = slot.scanned;
        slot.visitLast(start, end, fanOut, field, excludeId, visit);
        scannedEdges += slot.scanned - before;
        return;
      }
      const inside = slot.entries.filter((e) => e.timestamp >= start && e.timestamp <= end && e.id !== excludeId).sort(compareSeriesEntries);
      for (let i = Math.max(0, inside.length - fanOut); i < inside.length; i++) {
        const e = inside[i] as WindowEntry;
        const value = e.values?.[field];
        scannedEdges += 1;
        visit(e.timestamp, typeof value === 'string' && value !== '' ? value : undefined);
      }
    };
    return q.fn === 'hopsTo' ? searchHops(q, read) : searchSharedSource(q, read);
  }

  return {
    apply(remove, add) {
      assertSeriesEntries(add, '/add');
      for (let r = 0; r < remove.length; r++) {
        const ref = remove[r] as SeriesEntryRef;
        // An entry re-added under the same (series, key, id) is replaced in place by the add below
        // (the same result as removing it first), so an event that changes nothing costs nothing.
        if (isReplaced(ref, add)) continue;
        const slot = bySeries.get(ref.series)?.get(ref.key);
        if (slot === undefined) continue;
        if (isLight(slot)) {
          const i = slot.find(ref.id);
          if (i >= 0) slot.entries.splice(i, 1);
          if (slot.entries.length === 0) forget(ref.series, ref.key);
        } else if (slot.remove(ref.id) && slot.size === 0) {
          forget(ref.series, ref.key);
        }
      }
      for (let a = 0; a < add.length; a++) {
        const entry = add[a] as SeriesEntry;
        let keys = bySeries.get(entry.series);
        if (keys === undefined) {
          keys = new Map();
          bySeries.set(entry.series, keys);
        }
        const slot = keys.get(entry.key);
        if (slot === undefined) {
          // A new key starts light (most keys of a pair series are written once and never read).
          // (Like a full index, an entry older than the prune horizon is held until the next prune.)
          keys.set(entry.key, new LightSlot([copyEntry(entry)]));
        } else if (isLight(slot)) {
          const i = slot.find(entry.id);
          if (i >= 0) slot.entries[i] = copyEntry(entry);
          else slot.entries.push(copyEntry(entry));
          if (slot.entries.length > LIGHT_MAX) indexOf(entry.series, entry.key);
        } else {
          // A SeriesEntry is a WindowEntry; the index copies the fields it keeps.
          slot.upsert(entry);
        }
      }
    },

    query(q) {
      return run(q, -1);
    },

    queryMany(qs) {
      const out: AggregateValue[] = new Array<AggregateValue>(qs.length);
      // The queries of one transaction read a few (series, key) pairs many times: each pair's
      // index is looked up once per batch (no write happens during a batch).
      // (Scratch arrays of this store, emptied per batch: a batch runs synchronously to its end.)
      seenSeries.length = 0;
      seenKeys.length = 0;
      seenIndexes.length = 0;
      for (let i = 0; i < qs.length; i++) {
        const q = qs[i] as AggregateQuery;
        // Read once: a query is caller data (a getter must not make the three lists disagree).
        const series = q.series;
        const key = q.key;
        let index: WindowIndex | undefined;
        for (let j = 0; j < seenSeries.length; j++) {
          if (seenKeys[j] === key && seenSeries[j] === series) {
            index = seenIndexes[j];
            break;
          }
        }
        if (index === undefined) {
          index = indexOf(series, key) ?? empty;
          const n = seenSeries.length;
          if (n < 8) {
            seenSeries[n] = series;
            seenKeys[n] = key;
            seenIndexes[n] = index;
          }
        }
        out[i] = run(q, i, index);
      }
      // Hold no index past the batch (a dropped series must not stay reachable from here).
      seenSeries.length = 0;
      seenKeys.length = 0;
      seenIndexes.length = 0;
      return out;
    },

    entries(series, key) {
      const slot = bySeries.get(series)?.get(key);
      if (slot !== undefined && isLight(slot)) {
        return [...slot.entries]
          .sort(compareSeriesEntries)
          .map((e) =>
            e.values === undefined
              ? { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount }
              : { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values },
          );
      }
      const index = slot;
      if (index === undefined) return [];
      return index
        .entries()
        .map((e) =>
          e.values === undefined
            ? { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount }
            : { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values },
        );
    },

    dropSeries(series) {
      bySeries.delete(series);
      horizons.delete(series);
    },

    pruneBefore(timestamp, only) {
      let dropped = 0;
      // A named series keeps its horizon even when nothing of it is held yet.
      if (only !== undefined && !bySeries.has(only) && timestamp > (horizons.get(only) ?? -Infinity)) horizons.set(only, timestamp);
      for (const [series, keys] of bySeries) {
        if (only !== undefined && series !== only) continue;
        if (!(timestamp > (horizons.get(series) ?? -Infinity))) continue;
        horizons.set(series, timestamp);
        for (const [key, slot] of keys) {
          if (isLight(slot)) {
            if (!slot.entries.some((e) => e.timestamp < timestamp)) continue;
            const kept = slot.entries.filter((e) => e.timestamp >= timestamp);
            dropped += slot.entries.length - kept.length;
            slot.entries = kept;
            if (kept.length === 0) keys.delete(key);
            continue;
          }
          dropped += slot.pruneBefore(timestamp);
          if (slot.size === 0) keys.delete(key);
        }
        if (keys.size === 0) bySeries.delete(series);
      }
      return dropped;
    },

    retainedFrom() {
      return new Map(horizons);
    },

    get scannedEdges() {
      return scannedEdges;
    },
  };
}

/**
 * `q` answered by one key's index, through the {@link WindowIndex} method for `q.fn` (`q.series`
 * and `q.key` are not read: the index is that key's history). `q` must have passed `assertAggregateQuery`.
 * `position` (≥ 0) is the query's index in a batch, for the error path. Internal: the store's one
 * dispatch, also used by the index's tests.
 * @throws TxmonError `VALIDATION_FAILED` (detail path `/fn`) for an unknown function
 */
export function queryIndex(index: WindowIndex, q: AggregateQuery, position = -1): AggregateValue {
  const { start, end, excludeId } = q;
  switch (q.fn) {
    case 'count':
      return index.count(start, end, excludeId);
    case 'sum':
      return index.sum(start, end, excludeId);
    case 'amountCount':
      return index.amountCount(start, end, excludeId);
    case 'min':
      return index.min(start, end, excludeId);
    case 'max':
      return index.max(start, end, excludeId);
    case 'distinct':
      return index.distinctCount(start, end, q.field as string, excludeId, q.includeValue);
    case 'latest':
      return index.latest(start, end, excludeId);
    case 'countIn':
      return index.countIn(start, end, q.field as string, q.values ?? [], excludeId);
    case 'sumIn':
      return index.sumIn(start, end, q.field as string, q.values ?? [], excludeId);
    case 'lastAmountCount':
      return index.lastAmountCount(start, end, q.limit as number, excludeId);
    case 'lastMin':
      return index.lastMin(start, end, q.limit as number, excludeId);
    case 'lastMax':
      return index.lastMax(start, end, q.limit as number, excludeId);
    case 'lastEntries':
      return index.lastEntries(start, end, q.limit as number, excludeId);
    default:
      throw unknownFunction(position < 0 ? '' : `/${position}`);
  }
}

/**
 * Brute-force reference of {@link AggregateStore.query}: scans `entries` (any order; those of
 * other series or keys are skipped; a graph function reads every key of its series) and computes `q` directly. Pure; O(entries). Used by property
 * tests to check the incremental store.
 *
 * @throws TxmonError `VALIDATION_FAILED` as {@link AggregateStore.query} (detail paths `/field`,
 *   `/limit`, `/fn`)
 */
export function computeAggregate(entries: readonly SeriesEntry[], q: AggregateQuery): AggregateValue {
  assertAggregateQuery(q, -1);
  if (isGraphFunction(q.fn)) return referenceGraphAggregate(entries, q);
  const inside = entries.filter(
    (e) => e.series === q.series && e.key === q.key && e.timestamp >= q.start && e.timestamp <= q.end && (q.excludeId === undefined || e.id !== q.excludeId),
  );
  const amounts = inside.flatMap((e) => (e.amount === null ? [] : [e.amount]));
  switch (q.fn) {
    case 'count':
      return inside.length;
    case 'sum':
      return amounts.reduce((a, b) => a + b, 0n);
    case 'amountCount':
      return amounts.length;
    case 'min':
      return amounts.reduce<bigint | null>((a, b) => (a === null || b < a ? b : a), null);
    case 'max':
      return amounts.reduce<bigint | null>((a, b) => (a === null || b > a ? b : a), null);
    case 'distinct': {
      const field = q.field as string;
      const seen = new Set<string>();
      for (const e of inside) {
        const value = e.values?.[field];
        if (typeof value === 'string' && value !== '') seen.add(value);
      }
      if (q.includeValue !== undefined && q.includeValue !== '') seen.add(q.includeValue);
      return seen.size;
    }
    case 'latest':
      return inside.reduce<number | null>((a, e) => (a === null || e.timestamp > a ? e.timestamp : a), null);
    case 'countIn':
    case 'sumIn': {
      const wanted = new Set(q.values ?? []);
      const matching = inside.filter((e) => {
        const v = e.values?.[q.field as string];
        return typeof v === 'string' && v !== '' && wanted.has(v);
      });
      if (q.fn === 'countIn') return matching.length;
      return matching.reduce((total, e) => (e.amount === null ? total : total + e.amount), 0n);
    }
    case 'lastAmountCount':
    case 'lastMin':
    case 'lastMax': {
      const ordered = [...inside].sort(compareSeriesEntries);
      const last = (q.limit as number) === 0 ? [] : ordered.slice(-(q.limit as number));
      const lastAmounts = last.flatMap((e) => (e.amount === null ? [] : [e.amount]));
      if (q.fn === 'lastAmountCount') return lastAmounts.length;
      const wantMax = q.fn === 'lastMax';
      return lastAmounts.reduce<bigint | null>((a, b) => (a === null || (wantMax ? b > a : b < a) ? b : a), null);
    }
    case 'lastEntries':
      return lastEntriesOf(inside, q.limit as number);
    default:
      throw unknownFunction('');
  }
}

/** The last `limit` of `inside` in (timestamp, id) order, as `lastEntries` answers them. */
function lastEntriesOf(inside: readonly SeriesEntry[], limit: number): AggregateEntry[] {
  const ordered = [...inside].sort(compareSeriesEntries);
  const last = limit === 0 ? [] : ordered.slice(-limit);
  return last.map((e) =>
    e.values === undefined ? { id: e.id, timestamp: e.timestamp, amount: e.amount } : { id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values },
  );
}

function unknownFunction(path: string): TxmonError {
  return new TxmonError('VALIDATION_FAILED', `Invalid aggregate query: ${path}/fn is not an aggregate function`, [
    { path: `${path}/fn`, code: 'enum', message: 'must be an aggregate function' },
  ]);
}
