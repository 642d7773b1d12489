/**
 * The history of one aggregation key (one user, one counterparty pair, one IP …), indexed for
 * windowed aggregates over closed time intervals [start, end].
 *
 * This is the only mutable data structure of the core; an adapter (the memory repositories, the
 * engine's per-tenant cache) owns each instance and serialises writes to it.
 *
 * ## Layout and costs (n = entries held)
 *
 * Entries live in parallel arrays of plain values sorted by (timestamp, id): timestamps, ids,
 * amounts, prefix sums of the amounts and prefix counts of the entries that have one (and each
 * entry's `values`, once any entry had some). Amounts and prefix sums are plain numbers while all
 * of them lie within ±2^52, where doubles are exact integers; the first one beyond switches the
 * index to bigints for good. Held ids are a Set while there are at most 64 (an entry is then found
 * by a scan back from the newest one: updated and excluded entries are almost always recent) and
 * a Map id → timestamp beyond. Nothing per entry is an object of its own, so keeping an entry
 * costs a few array slots and no allocation that survives the call.
 *
 * | operation | cost |
 * |---|---|
 * | `count`, `sum`, `amountCount` (with or without `excludeId`) | O(log n): two binary searches, prefix differences; `excludeId` is one Set/Map lookup, and when the id is held, finding it (up to 64 steps back from the newest entry, or a binary search by its timestamp; remembered until the next change) |
 * | `upsert` of a new entry at or after the last one (timestamps mostly increase) | amortised O(1) |
 * | `upsert` out of order, replacing an entry, `remove` | O(d): d = entries after the touched position (prefixes are recomputed from there); small in practice since late arrivals and updates are recent |
 * | the switch to bigints (once per index, when an amount or a prefix sum passes ±2^52) | O(n) |
 * | `min`, `max` | O(B + k/B), k = entries in the range, B = 64: block summaries of 64 entries, computed lazily on the first min/max query, so keys never asked for min/max pay nothing |
 * | `distinctCount` | ranges under 8 entries: a scan. Larger ranges: up to 8 cursors per index keep a multiset of the values of a previous range and move their boundaries, so the common "window slides forward" pattern costs O(entries entering + leaving); a change of an entry (insert, replace, remove) updates every cursor in O(1) each, so an event on a recent transaction never makes the next count rescan its window; a cursor is rebuilt (O(k)) only when moving it would cost more than rescanning |
 * | `countIn` | as `distinctCount` (same cursors), plus O(\|values\|) |
 * | `sumIn` | as `countIn`; its cursors also keep a per-value sum of the amounts (a cursor with sums serves counts too, one without is not used for sums) |
 * | `lastAmountCount` | O(log n): the last `limit` entries are a position range, answered from the prefixes |
 * | `lastMin`, `lastMax` | as `min`, `max` over that position range: O(log n + B + limit/B) |
 * | `visitLast` (the capped edges of a graph query) | O(log n + limit) |
 * | `lastEntries` | O(log n + limit): that position range copied out, entry by entry (counted in `scanned`) |
 * | `pruneBefore` | O(log n + pruned); storage is compacted (O(n)) only once at least half the arrays are pruned, so compaction is amortised O(1) per pruned entry |
 *
 * {@link WindowIndex.scanned} counts the entries read one by one (scans and cursor moves), so
 * tests can bound that work without timing anything.
 *
 * Entries are stored as their fields (`get` and `entries` build new objects); `values` objects are
 * kept by reference and must not be mutated.
 */
import { assertEntryTimestamp } from './checks.js';

/** One entry of a key's history: a transaction's contribution to the aggregates of that key. */
export interface WindowEntry {
  /** Unique within the index, e.g. the transaction id. */
  readonly id: string;
  /** Epoch ms (UTC); fractional ms allowed. */
  readonly timestamp: number;
  /** Exact amount in scaled integer units (see `toScaled`), or `null` when the entry has none. */
  readonly amount: bigint | null;
  /** String attributes for distinct counts (counterparty id, country, IP …); empty strings are ignored. */
  readonly values?: Readonly<Record<string, string>>;
}

/**
 * A mutable, ordered index of one key's {@link WindowEntry entries}; all queries cover the closed
 * interval [start, end] (an entry exactly at `start` or `end` is inside; `start > end` is empty)
 * and skip the entry `excludeId` when given. See the module comment for costs.
 */
export interface WindowIndex {
  /** Number of entries held (pruned entries excluded). */
  readonly size: number;
  /** Earliest timestamp held, `null` when empty. */
  readonly firstTimestamp: number | null;
  /** Latest timestamp held, `null` when empty. */
  readonly lastTimestamp: number | null;
  /**
   * Entries dropped by {@link WindowIndex.pruneBefore} over the index's life. Lifetime count ≈
   * `size + prunedCount`, exact unless a pruned id is upserted again (the index forgets pruned ids).
   */
  readonly prunedCount: number;
  /**
   * The highest horizon passed to {@link WindowIndex.pruneBefore} (`-Infinity` before any prune):
   * queries with `start ≥ retainedFrom` are exact; earlier ones miss the pruned history.
   */
  readonly retainedFrom: number;
  /**
   * Inserts `entry`, or replaces the entry with the same id wherever it is (it moves if its
   * timestamp changed).
   * @throws TxmonError `VALIDATION_FAILED` (detail path `/timestamp`) when the timestamp is not finite
   */
  upsert(entry: WindowEntry): void;
  /** Removes the entry `id`; `false` when there was none. */
  remove(id: string): boolean;
  /** The entry `id` (a copy made on upsert), or `null`. */
  get(id: string): WindowEntry | null;
  /** All entries held, ordered by (timestamp, id); a new array. */
  entries(): WindowEntry[];
  /** Number of entries in [start, end]. */
  count(start: number, end: number, excludeId?: string): number;
  /** Exact sum of the non-null amounts in [start, end]; `0n` when none. */
  sum(start: number, end: number, excludeId?: string): bigint;
  /** Number of entries with a non-null amount in [start, end] (the divisor of an average). */
  amountCount(start: number, end: number, excludeId?: string): number;
  /** Smallest non-null amount in [start, end], `null` when none. */
  min(start: number, end: number, excludeId?: string): bigint | null;
  /** Largest non-null amount in [start, end], `null` when none. */
  max(start: number, end: number, excludeId?: string): bigint | null;
  /**
   * Number of entries in [start, end] (other than `excludeId`) whose `values[field]` is one of
   * `values`. Large ranges reuse the distinct-count cursors (a value → count tally), so the sliding
   * pattern costs O(entries entering + leaving + |values|); small ranges are scanned.
   */
  countIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): number;
  /**
   * Exact sum of the non-null amounts of the entries in [start, end] (other than `excludeId`) whose
   * `values[field]` is one of `values`; `0n` when none. Costs as {@link WindowIndex.countIn}.
   */
  sumIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): bigint;
  /**
   * Of the last `limit` entries in [start, end] other than `excludeId` (the latest by
   * (timestamp, id)), the number with a non-null amount. Equals `limit` exactly when at least
   * `limit` such entries exist and all of them have an amount. `0` when `limit` is not positive.
   */
  lastAmountCount(start: number, end: number, limit: number, excludeId?: string): number;
  /** Smallest non-null amount among the same last `limit` entries, `null` when none. */
  lastMin(start: number, end: number, limit: number, excludeId?: string): bigint | null;
  /** Largest non-null amount among the same last `limit` entries, `null` when none. */
  lastMax(start: number, end: number, limit: number, excludeId?: string): bigint | null;
  /**
   * The same last `limit` entries themselves, oldest first (by (timestamp, id)); new objects,
   * `values` by reference. Empty when `limit` is not positive. Reads (and counts in
   * {@link WindowIndex.scanned}) at most `limit + 1` entries.
   */
  lastEntries(start: number, end: number, limit: number, excludeId?: string): WindowEntry[];
  /** Timestamp of the latest entry in [start, end] other than `excludeId`, `null` when none. O(log n). */
  latest(start: number, end: number, excludeId?: string): number | null;
  /**
   * Number of distinct non-empty `values[field]` among the entries in [start, end] other than
   * `excludeId`; `includeValue` counts as present too (see `AggregateQuery.includeValue`).
   */
  distinctCount(start: number, end: number, field: string, excludeId?: string, includeValue?: string): number;
  /**
   * Calls `visit` with the timestamp and `values[field]` (`undefined` when absent or empty) of
   * each of the last `limit` entries of [start, end] other than `excludeId` (the latest by
   * (timestamp, id)), oldest first: the capped edges of a graph query (graph.ts). O(log n + limit);
   * each entry visited counts in {@link WindowIndex.scanned}.
   */
  visitLast(
    start: number,
    end: number,
    limit: number,
    field: string,
    excludeId: string | undefined,
    visit: (timestamp: number, value: string | undefined) => void,
  ): void;
  /**
   * Entries read one at a time over the index's life: by the scans of small ranges and the
   * cursor moves and rebuilds of `distinctCount`, `countIn` and `sumIn`, and the entries
   * `lastEntries` copies out. A cost counter for tests
   * and benchmarks (the O(log n) functions read none).
   */
  readonly scanned: number;
  /**
   * Drops every entry with `timestamp < horizon` (a retention horizon); returns how many.
   * A horizon lower than an earlier one drops nothing more and leaves `retainedFrom` unchanged.
   */
  pruneBefore(horizon: number): number;
}

/** Entries per min/max block summary. */
const BLOCK = 64;
/** Ranges smaller than this are scanned by `distinctCount` instead of using a cursor. */
const CURSOR_MIN_RANGE = 8;
/**
 * Cursors kept per index (least recently used one is replaced): one per (field, window) a set of
 * instances reads on one key, e.g. R-10 over 7 and 30 days, R-9, a UNIQUE_COUNT variable.
 */
const MAX_CURSORS = 8;

interface DistinctCursor {
  readonly field: string;
  lo: number;
  hi: number;
  readonly counts: Map<string, number>;
  /** Per value, the sum of the non-null amounts of its entries in [lo, hi); `null` when this cursor keeps no sums. */
  readonly sums: Map<string, bigint> | null;
  lastUsed: number;
}

/**
 * Creates an empty {@link WindowIndex}.
 *
 * @example
 * ```ts
 * const index = createWindowIndex();
 * index.upsert({ id: 't1', timestamp: 1_700_000_000_000, amount: 1_000_000_000n });
 * index.sum(1_700_000_000_000 - 86_400_000, 1_700_000_000_000); // 1_000_000_000n
 * ```
 */
export function createWindowIndex(): WindowIndex {
  return new ArrayWindowIndex();
}

/** Whether two entries' `values` hold the same strings under the same names. */
function sameValues(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  let n = 0;
  for (const name in a) {
    if (!Object.hasOwn(a, name)) continue;
    if (!Object.hasOwn(b, name) || a[name] !== b[name]) return false;
    n += 1;
  }
  for (const name in b) if (Object.hasOwn(b, name)) n -= 1;
  return n === 0;
}

/**
 * Amounts and prefix sums are kept as plain numbers while every one of them lies within ±2^52
 * (then each is an exact integer, and so is the difference of two prefix sums); past that the
 * index switches to bigints for good.
 */
const NUMBER_LIMIT = 2 ** 52;
const BIG_LIMIT = 2n ** 52n;
const NEGATIVE_BIG_LIMIT = -BIG_LIMIT;
/** Window starts whose positions an index remembers between changes. */
const EDGE_MEMO = 4;
/** Indexes with fewer entries find window starts by binary search every time (a few steps). */
const EDGE_MEMO_MIN = 32;
/** Past this many held ids an index finds entries by id through a Map id → timestamp; below, by a short scan. */
const ID_MAP_MIN = 64;

type Values = Readonly<Record<string, string>>;
/** An amount as stored: a number (`NaN` for none) before the switch to bigints, a bigint (`null` for none) after. */
type StoredAmount = number | bigint | null;

function isPresent(amount: StoredAmount): amount is number | bigint {
  // NaN marks "no amount" in the number form.
  return amount !== null && !Number.isNaN(amount);
}

/** The non-empty string `values[field]`, else `undefined`. */
function valueIn(values: Values | undefined, field: string): string | undefined {
  const value = values?.[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** Lists of values up to this length are de-duplicated by scanning (no set per query). */
const SHORT_LIST = 16;

/**
 * The values of a `countIn` / `sumIn` list, each once (a value listed twice counts once): the list
 * itself when it is short and has no repeat (the usual few types or states), else a set of it.
 */
function distinctListing(values: readonly string[]): readonly string[] | ReadonlySet<string> {
  if (values.length > SHORT_LIST) return new Set(values);
  for (let i = 1; i < values.length; i++) if (values.lastIndexOf(values[i] as string, i - 1) >= 0) return new Set(values);
  return values;
}

function isListed(listed: readonly string[] | ReadonlySet<string>, value: string): boolean {
  return Array.isArray(listed) ? (listed as readonly string[]).includes(value) : (listed as ReadonlySet<string>).has(value);
}

function toBigAmount(amount: number | bigint): bigint {
  return typeof amount === 'bigint' ? amount : BigInt(amount);
}

/**
 * The {@link WindowIndex} implementation: a class, so an index is cheap to create and its calls
 * stay monomorphic. Entries are not kept as objects: timestamps, ids, amounts, prefix sums and
 * prefix counts are parallel arrays of plain values, so an append writes a few array slots and
 * allocates nothing that outlives the call (the retained heap and the scavenger's copying work
 * were what an entry object, a bigint prefix and a Map entry per held entry cost).
 */
class ArrayWindowIndex implements WindowIndex {
  // Physical arrays; positions [0, head) are pruned and wait for compaction.
  private ts: number[] = [];
  private ids: string[] = [];
  // Number form: amounts (NaN = none) and prefix sums, exact below NUMBER_LIMIT.
  private amt: number[] = [];
  private ps: number[] = [0];
  // Bigint form, once an amount or a prefix sum reached NUMBER_LIMIT (then `amt`/`ps` are unused).
  private bigAmt: (bigint | null)[] | null = null;
  private bigPs: bigint[] | null = null;
  // prefixAmountCount[i]: entries with an amount at physical positions [0, i); length = n + 1.
  private pc: number[] = [0];
  // Each entry's `values`, or null while no entry had any.
  private vals: (Values | undefined)[] | null = null;
  private head = 0;
  // Held ids: a Set while few (an entry is then found by a short scan), a Map id → timestamp past ID_MAP_MIN.
  private idSet: Set<string> | null = new Set();
  private idTs: Map<string, number> | null = null;
  // The last position found for an id (queries of one transaction exclude the same id many times); reset by every change.
  private memoId: string | undefined = undefined;
  private memoPos = -1;
  // Window edges found by queries since the last change (the queries of one transaction share
  // their windows' starts): the first `edgeCount` of up to EDGE_MEMO start timestamps and their
  // lowerBound positions (a change only resets the count: the arrays keep their storage). Only
  // indexes of EDGE_MEMO_MIN entries or more keep them (most keys hold a few entries).
  private edgeT: number[] | null = null;
  private edgePos: number[] | null = null;
  private edgeCount = 0;
  private edgeNext = 0;
  // Lazy min/max summaries of full blocks [b·BLOCK, (b+1)·BLOCK); valid for b < validBlocks.
  private blockMin: StoredAmount[] = [];
  private blockMax: StoredAmount[] = [];
  private validBlocks = 0;
  private cursors: DistinctCursor[] = [];
  private clock = 0;
  private scannedValue = 0;
  private prunedCountValue = 0;
  private retainedFromValue = -Infinity;

  /** First physical position in [head, n) whose timestamp is ≥ t (n when none). */
  private lowerBound(t: number): number {
    const ts = this.ts;
    let lo = this.head;
    let hi = ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ts[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** {@link lowerBound} for a query's window start, remembered until the next change. */
  private startOf(t: number): number {
    let edges = this.edgeT;
    if (edges === null) {
      if (this.ts.length - this.head < EDGE_MEMO_MIN) return this.lowerBound(t);
      edges = this.edgeT = new Array<number>(EDGE_MEMO).fill(0);
      this.edgePos = new Array<number>(EDGE_MEMO).fill(0);
    }
    const known = this.edgeCount;
    const positions = this.edgePos as number[];
    for (let i = 0; i < known; i++) if (edges[i] === t) return positions[i] as number;
    const position = this.lowerBound(t);
    const slot = this.edgeNext;
    edges[slot] = t;
    positions[slot] = position;
    this.edgeNext = slot + 1 === EDGE_MEMO ? 0 : slot + 1;
    if (known < EDGE_MEMO) this.edgeCount = known + 1;
    return position;
  }

  /** First physical position in [head, n) whose timestamp is > t (n when none). */
  private upperBound(t: number): number {
    const ts = this.ts;
    let lo = this.head;
    let hi = ts.length;
    // Most windows end at or after the newest entry (they end at the transaction being evaluated).
    if (hi > lo && (ts[hi - 1] as number) <= t) return hi;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ts[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First physical position whose (timestamp, id) is ≥ (t, id): the entry's slot. */
  private slotOf(t: number, id: string): number {
    let lo = this.head;
    let hi = this.ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const mt = this.ts[mid] as number;
      if (mt < t || (mt === t && (this.ids[mid] as string) < id)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  private holds(id: string): boolean {
    return this.idTs !== null ? this.idTs.has(id) : (this.idSet as Set<string>).has(id);
  }

  private addId(id: string, timestamp: number): void {
    if (this.idTs !== null) {
      this.idTs.set(id, timestamp);
      return;
    }
    const set = this.idSet as Set<string>;
    set.add(id);
    if (set.size > ID_MAP_MIN) {
      // Called before the new entry is stored: the held ones come from the arrays, then this one.
      const map = new Map<string, number>();
      for (let i = this.head; i < this.ts.length; i++) map.set(this.ids[i] as string, this.ts[i] as number);
      map.set(id, timestamp);
      this.idTs = map;
      this.idSet = null;
    }
  }

  private deleteId(id: string): void {
    if (this.idTs !== null) this.idTs.delete(id);
    else (this.idSet as Set<string>).delete(id);
  }

  /**
   * Physical position of the held entry `id`, −1 when none. `hint` is a timestamp the entry
   * probably has (an upsert's own): its tie range is looked at first. Small indexes then scan
   * from the newest entry back (updated entries are mostly recent); large ones know each id's
   * timestamp.
   */
  private positionOf(id: string, hint?: number): number {
    if (id === this.memoId) return this.memoPos;
    let position = -1;
    if (this.holds(id)) {
      const t = this.idTs !== null ? this.idTs.get(id) : hint;
      if (t !== undefined) {
        for (let i = this.lowerBound(t); i < this.ts.length && this.ts[i] === t; i++) {
          if (this.ids[i] === id) {
            position = i;
            break;
          }
        }
      }
      if (position < 0) {
        for (let i = this.ts.length - 1; i >= this.head; i--) {
          if (this.ids[i] === id) {
            position = i;
            break;
          }
        }
      }
    }
    this.memoId = id;
    this.memoPos = position;
    return position;
  }

  /** Position of the excluded entry when it is held and inside physical [lo, hi); else −1. */
  private excludedIn(lo: number, hi: number, excludeId: string | undefined): number {
    if (excludeId === undefined) return -1;
    const position = this.positionOf(excludeId);
    return position >= lo && position < hi ? position : -1;
  }

  private changed(): void {
    this.memoId = undefined;
    this.memoPos = -1;
    this.edgeCount = 0;
    this.edgeNext = 0;
  }

  private hasAmountAt(i: number): boolean {
    return this.bigAmt !== null ? this.bigAmt[i] !== null : !Number.isNaN(this.amt[i]);
  }

  /** Amount at physical position i, as a bigint. */
  private amountAt(i: number): bigint | null {
    if (this.bigAmt !== null) return this.bigAmt[i] as bigint | null;
    const a = this.amt[i] as number;
    return Number.isNaN(a) ? null : BigInt(a);
  }

  /** The amounts in their stored form (numbers with NaN, or bigints with null). */
  private storedAmounts(): readonly StoredAmount[] {
    return this.bigAmt ?? this.amt;
  }

  /** Sum of the amounts at physical [lo, hi), exact. */
  private rangeSum(lo: number, hi: number): bigint {
    if (this.bigPs !== null) return (this.bigPs[hi] as bigint) - (this.bigPs[lo] as bigint);
    return BigInt((this.ps[hi] as number) - (this.ps[lo] as number));
  }

  /** Switches amounts and prefix sums to bigints for good (an amount or a sum reached NUMBER_LIMIT). */
  private goBig(): void {
    if (this.bigAmt !== null) return;
    const n = this.ts.length;
    const amounts: (bigint | null)[] = new Array<bigint | null>(n);
    const prefixes: bigint[] = new Array<bigint>(n + 1);
    let s = 0n;
    prefixes[0] = 0n;
    for (let i = 0; i < n; i++) {
      const a = this.amt[i] as number;
      const big = Number.isNaN(a) ? null : BigInt(a);
      amounts[i] = big;
      if (big !== null) s += big;
      prefixes[i + 1] = s;
    }
    this.bigAmt = amounts;
    this.bigPs = prefixes;
    this.amt = [];
    this.ps = [0];
    this.validBlocks = 0;
  }

  /** Recomputes prefixes for positions ≥ from and drops summaries and cursors that covered them. */
  private touchFrom(from: number): void {
    const n = this.ts.length;
    this.pc.length = from + 1;
    let c = this.pc[from] as number;
    if (this.bigAmt === null) {
      this.ps.length = from + 1;
      let s = this.ps[from] as number;
      for (let i = from; i < n; i++) {
        const a = this.amt[i] as number;
        if (!Number.isNaN(a)) {
          s += a;
          if (s > NUMBER_LIMIT || s < -NUMBER_LIMIT) {
            this.pc.length = 1;
            this.goBig();
            this.touchFrom(0);
            return;
          }
        }
        this.ps.push(s);
      }
    } else {
      const prefixes = this.bigPs as bigint[];
      prefixes.length = from + 1;
      let s = prefixes[from] as bigint;
      for (let i = from; i < n; i++) {
        const a = this.bigAmt[i] as bigint | null;
        if (a !== null) s += a;
        prefixes.push(s);
      }
    }
    const amounts = this.storedAmounts();
    for (let i = from; i < n; i++) {
      if (isPresent(amounts[i] as StoredAmount)) c += 1;
      this.pc.push(c);
    }
    const firstBlock = Math.floor(from / BLOCK);
    if (this.validBlocks > firstBlock) this.validBlocks = firstBlock;
    // Cursors were kept in step by insertAt, removeAt and cursorsReplace.
  }

  /** Stores `amount` at position i (replacing) or inserted before i, in the current form. */
  private putAmount(i: number, amount: bigint | null, insert: boolean): void {
    if (this.bigAmt !== null) {
      if (insert) this.bigAmt.splice(i, 0, amount);
      else this.bigAmt[i] = amount;
    } else {
      const a = amount === null ? NaN : Number(amount);
      if (insert) this.amt.splice(i, 0, a);
      else this.amt[i] = a;
    }
  }

  /** Starts keeping `values` (an entry has some), with none for the `held` physical positions so far. */
  private keepValues(held: number): void {
    if (this.vals === null) this.vals = new Array<Values | undefined>(held).fill(undefined);
  }

  /** Adds one entry's value (and amount) to a cursor's tally. */
  private static tally(cursor: DistinctCursor, values: Values | undefined, amount: bigint | null): void {
    const value = valueIn(values, cursor.field);
    if (value === undefined) return;
    cursor.counts.set(value, (cursor.counts.get(value) ?? 0) + 1);
    if (cursor.sums !== null && amount !== null) cursor.sums.set(value, (cursor.sums.get(value) ?? 0n) + amount);
  }

  /** Takes one entry's value (and amount) out of a cursor's tally. */
  private static untally(cursor: DistinctCursor, values: Values | undefined, amount: bigint | null): void {
    const value = valueIn(values, cursor.field);
    if (value === undefined) return;
    const left = (cursor.counts.get(value) as number) - 1;
    if (left === 0) {
      cursor.counts.delete(value);
      cursor.sums?.delete(value);
    } else {
      cursor.counts.set(value, left);
      if (cursor.sums !== null && amount !== null) cursor.sums.set(value, (cursor.sums.get(value) as bigint) - amount);
    }
  }

  /**
   * Keeps the cursors in step with an entry inserted at `position`: those after it shift, one
   * around it takes it in (one starting at it shifts: it keeps covering the same entries).
   */
  private cursorsInsert(position: number, values: Values | undefined, amount: bigint | null): void {
    for (const cursor of this.cursors) {
      if (position <= cursor.lo) {
        cursor.lo += 1;
        cursor.hi += 1;
      } else if (position < cursor.hi) {
        cursor.hi += 1;
        ArrayWindowIndex.tally(cursor, values, amount);
      }
    }
  }

  /** Keeps the cursors in step with the entry at `position` about to be removed. */
  private cursorsRemove(position: number): void {
    if (this.cursors.length === 0) return;
    const values = this.vals?.[position];
    const amount = this.amountAt(position);
    for (const cursor of this.cursors) {
      if (position < cursor.lo) {
        cursor.lo -= 1;
        cursor.hi -= 1;
      } else if (position < cursor.hi) {
        cursor.hi -= 1;
        ArrayWindowIndex.untally(cursor, values, amount);
      }
    }
  }

  /** Keeps the cursors covering `position` in step with its entry about to be replaced in place. */
  private cursorsReplace(position: number, values: Values | undefined, amount: bigint | null): void {
    if (this.cursors.length === 0) return;
    const oldValues = this.vals?.[position];
    const oldAmount = this.amountAt(position);
    for (const cursor of this.cursors) {
      if (position < cursor.lo || position >= cursor.hi) continue;
      ArrayWindowIndex.untally(cursor, oldValues, oldAmount);
      ArrayWindowIndex.tally(cursor, values, amount);
    }
  }

  private insertAt(position: number, id: string, timestamp: number, amount: bigint | null, values: Values | undefined): void {
    this.cursorsInsert(position, values, amount);
    this.ts.splice(position, 0, timestamp);
    this.ids.splice(position, 0, id);
    this.putAmount(position, amount, true);
    if (values !== undefined) this.keepValues(this.ts.length - 1);
    if (this.vals !== null) this.vals.splice(position, 0, values);
  }

  private removeAt(position: number): void {
    this.cursorsRemove(position);
    this.ts.splice(position, 1);
    this.ids.splice(position, 1);
    if (this.bigAmt !== null) this.bigAmt.splice(position, 1);
    else this.amt.splice(position, 1);
    if (this.vals !== null) this.vals.splice(position, 1);
  }

  private ensureBlocks(): void {
    const full = Math.floor(this.ts.length / BLOCK);
    const amounts = this.storedAmounts();
    this.blockMin.length = this.validBlocks;
    this.blockMax.length = this.validBlocks;
    for (let b = this.validBlocks; b < full; b++) {
      let lo: StoredAmount = null;
      let hi: StoredAmount = null;
      const end = (b + 1) * BLOCK;
      for (let i = b * BLOCK; i < end; i++) {
        const amount = amounts[i] as StoredAmount;
        if (!isPresent(amount)) continue;
        if (lo === null || amount < lo) lo = amount;
        if (hi === null || amount > hi) hi = amount;
      }
      this.blockMin.push(lo);
      this.blockMax.push(hi);
    }
    this.validBlocks = full;
  }

  /** Min (`wantMax` false) or max of the amounts at physical positions [from, to), in stored form; null when none. */
  private extremeOf(from: number, to: number, wantMax: boolean): number | bigint | null {
    const amounts = this.storedAmounts();
    let best: number | bigint | null = null;
    const firstFull = Math.ceil(from / BLOCK);
    const lastFull = Math.floor(to / BLOCK);
    const scan = (a: number, b: number): void => {
      for (let i = a; i < b; i++) {
        const amount = amounts[i] as StoredAmount;
        if (!isPresent(amount)) continue;
        if (best === null || (wantMax ? amount > best : amount < best)) best = amount;
      }
    };
    if (lastFull - firstFull < 1) {
      scan(from, to);
      return best;
    }
    this.ensureBlocks();
    const summaries = wantMax ? this.blockMax : this.blockMin;
    scan(from, firstFull * BLOCK);
    for (let b = firstFull; b < lastFull; b++) {
      const amount = summaries[b] as StoredAmount;
      if (!isPresent(amount)) continue;
      if (best === null || (wantMax ? amount > best : amount < best)) best = amount;
    }
    scan(lastFull * BLOCK, to);
    return best;
  }

  private extreme(start: number, end: number, excludeId: string | undefined, wantMax: boolean): bigint | null {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return null;
    return this.extremeAround(lo, hi, this.excludedIn(lo, hi, excludeId), wantMax);
  }

  /** Min or max over physical [from, to) leaving out position `skip` (−1 or outside: none). */
  private extremeAround(from: number, to: number, skip: number, wantMax: boolean): bigint | null {
    let best: number | bigint | null;
    if (skip < from || skip >= to) {
      best = this.extremeOf(from, to, wantMax);
    } else {
      const left = this.extremeOf(from, skip, wantMax);
      const right = this.extremeOf(skip + 1, to, wantMax);
      best = left === null ? right : right === null ? left : (wantMax ? right > left : right < left) ? right : left;
    }
    return best === null ? null : toBigAmount(best);
  }

  /**
   * The last `limit` entries of [start, end] other than `excludeId`, as the physical range
   * [from, to) plus the position `skip` of the excluded entry (−1 when it is not inside): the
   * range holds one more position when the excluded entry is among the last ones. `null` when
   * the window is empty or `limit` is not positive.
   */
  private findLastRange(start: number, end: number, limit: number, excludeId: string | undefined): { from: number; to: number; skip: number } | null {
    if (!(limit > 0)) return null;
    const lo = this.startOf(start);
    const to = this.upperBound(end);
    if (to <= lo) return null;
    const skip = this.excludedIn(lo, to, excludeId);
    let from = to - limit;
    if (skip >= 0 && skip >= from) from -= 1;
    return { from: Math.max(lo, from), to, skip };
  }

  private distinctValue(i: number, field: string): string | undefined {
    return valueIn(this.vals?.[i], field);
  }

  private moveCursor(cursor: DistinctCursor, lo: number, hi: number): void {
    this.scannedValue += Math.abs(lo - cursor.lo) + Math.abs(hi - cursor.hi);
    // Grow before shrinking so that counts never go below zero, also for disjoint ranges.
    if (hi > cursor.hi) this.cursorAdd(cursor, cursor.hi, hi);
    if (lo < cursor.lo) this.cursorAdd(cursor, lo, cursor.lo);
    if (hi < cursor.hi) this.cursorDrop(cursor, hi, cursor.hi);
    if (lo > cursor.lo) this.cursorDrop(cursor, cursor.lo, lo);
    cursor.lo = lo;
    cursor.hi = hi;
  }

  /** Tallies the entries at physical [from, to) into a cursor. */
  private cursorAdd(cursor: DistinctCursor, from: number, to: number): void {
    const { counts, sums, field } = cursor;
    for (let i = from; i < to; i++) {
      const value = this.distinctValue(i, field);
      if (value === undefined) continue;
      counts.set(value, (counts.get(value) ?? 0) + 1);
      if (sums !== null) {
        const amount = this.amountAt(i);
        if (amount !== null) sums.set(value, (sums.get(value) ?? 0n) + amount);
      }
    }
  }

  /** Takes the entries at physical [from, to) out of a cursor's tally. */
  private cursorDrop(cursor: DistinctCursor, from: number, to: number): void {
    const { counts, sums, field } = cursor;
    for (let i = from; i < to; i++) {
      const value = this.distinctValue(i, field);
      if (value === undefined) continue;
      const left = (counts.get(value) as number) - 1;
      if (left === 0) {
        counts.delete(value);
        sums?.delete(value);
      } else {
        counts.set(value, left);
        if (sums !== null) {
          const amount = this.amountAt(i);
          if (amount !== null) sums.set(value, (sums.get(value) as bigint) - amount);
        }
      }
    }
  }

  /**
   * A cursor positioned on physical [lo, hi) for `field` (one keeping sums when `withSums`): the
   * cheapest to move, or a rebuilt one.
   */
  private cursorFor(field: string, lo: number, hi: number, withSums = false): DistinctCursor {
    let best: DistinctCursor | undefined;
    let bestCost = hi - lo;
    for (const cursor of this.cursors) {
      if (cursor.field !== field || (withSums && cursor.sums === null)) continue;
      const cost = Math.abs(lo - cursor.lo) + Math.abs(hi - cursor.hi);
      if (cost <= bestCost) {
        best = cursor;
        bestCost = cost;
      }
    }
    if (best === undefined) {
      best = { field, lo, hi: lo, counts: new Map(), sums: withSums ? new Map() : null, lastUsed: 0 };
      if (this.cursors.length >= MAX_CURSORS) {
        let oldest = 0;
        for (let i = 1; i < this.cursors.length; i++) {
          if ((this.cursors[i] as DistinctCursor).lastUsed < (this.cursors[oldest] as DistinctCursor).lastUsed) oldest = i;
        }
        this.cursors.splice(oldest, 1);
      }
      this.cursors.push(best);
    }
    this.moveCursor(best, lo, hi);
    best.lastUsed = ++this.clock;
    return best;
  }

  private compact(): void {
    const head = this.head;
    this.ts = this.ts.slice(head);
    this.ids = this.ids.slice(head);
    if (this.bigAmt !== null) {
      const base = this.bigPs?.[head] as bigint;
      this.bigAmt = this.bigAmt.slice(head);
      this.bigPs = (this.bigPs as bigint[]).slice(head).map((s) => s - base);
    } else {
      // Number form: the prefix sums keep their values (only differences are read). Rebasing them
      // could move one outside ±2^52, where later sums would no longer be exact.
      this.amt = this.amt.slice(head);
      this.ps = this.ps.slice(head);
    }
    const baseCount = this.pc[head] as number;
    this.pc = this.pc.slice(head).map((c) => c - baseCount);
    if (this.vals !== null) this.vals = this.vals.slice(head);
    this.head = 0;
    this.validBlocks = 0;
    // pruneBefore dropped the cursors over pruned positions; the others move with their entries.
    for (const cursor of this.cursors) {
      cursor.lo -= head;
      cursor.hi -= head;
    }
    this.changed();
  }

  get size(): number {
    return this.ts.length - this.head;
  }
  get firstTimestamp(): number | null {
    return this.head < this.ts.length ? (this.ts[this.head] as number) : null;
  }
  get lastTimestamp(): number | null {
    return this.head < this.ts.length ? (this.ts[this.ts.length - 1] as number) : null;
  }
  get prunedCount(): number {
    return this.prunedCountValue;
  }
  get retainedFrom(): number {
    return this.retainedFromValue;
  }
  get scanned(): number {
    return this.scannedValue;
  }

  upsert(entry: WindowEntry): void {
    const id = entry.id;
    const timestamp = entry.timestamp;
    const amount = entry.amount;
    const values = entry.values;
    assertEntryTimestamp(timestamp, '/timestamp');
    if (amount !== null && this.bigAmt === null && (amount >= BIG_LIMIT || amount <= NEGATIVE_BIG_LIMIT)) this.goBig();
    this.changed();
    const n = this.ts.length;
    if (!this.holds(id)) {
      this.addId(id, timestamp);
      if (n === this.head || timestamp > (this.ts[n - 1] as number) || (timestamp === this.ts[n - 1] && id > (this.ids[n - 1] as string))) {
        // The common case, a new entry after all others: append and extend the prefixes, O(1).
        // Block summaries only cover full blocks before the end and cursors end at or before it,
        // so neither needs invalidating.
        this.ts.push(timestamp);
        this.ids.push(id);
        if (this.bigAmt === null) {
          const a = amount === null ? NaN : Number(amount);
          const s = amount === null ? (this.ps[n] as number) : (this.ps[n] as number) + a;
          this.amt.push(a);
          // Past the exact range: goBig rebuilds every prefix sum, this entry's included.
          if (s <= NUMBER_LIMIT && s >= -NUMBER_LIMIT) this.ps.push(s);
          else this.goBig();
        } else {
          (this.bigAmt as (bigint | null)[]).push(amount);
          const prefixes = this.bigPs as bigint[];
          prefixes.push(amount === null ? (prefixes[n] as bigint) : (prefixes[n] as bigint) + amount);
        }
        const c = this.pc[n] as number;
        this.pc.push(amount === null ? c : c + 1);
        if (values !== undefined) this.keepValues(n);
        if (this.vals !== null) this.vals.push(values);
        return;
      }
      const position = this.slotOf(timestamp, id);
      this.insertAt(position, id, timestamp, amount, values);
      this.touchFrom(position);
      return;
    }
    const old = this.positionOf(id, timestamp);
    this.changed();
    if (old < 0) {
      // Not reachable (held ids are always found); recover as a new entry rather than corrupt the arrays.
      this.deleteId(id);
      this.upsert(entry);
      return;
    }
    if (this.ts[old] === timestamp) {
      // Same (timestamp, id): same slot.
      const stored = this.bigAmt !== null ? this.bigAmt[old] : this.amt[old];
      const same = amount === null ? !isPresent(stored as StoredAmount) : this.bigAmt !== null ? stored === amount : stored === Number(amount);
      if (same && sameValues(this.vals?.[old], values)) {
        // The same entry again (an event that changed nothing this index keeps): nothing to do.
        return;
      }
      this.cursorsReplace(old, values, amount);
      this.putAmount(old, amount, false);
      if (values !== undefined) this.keepValues(n);
      if (this.vals !== null) this.vals[old] = values;
      this.touchFrom(old);
      return;
    }
    if (this.idTs !== null) this.idTs.set(id, timestamp);
    this.removeAt(old);
    const position = this.slotOf(timestamp, id);
    this.insertAt(position, id, timestamp, amount, values);
    this.touchFrom(Math.min(old, position));
  }

  remove(id: string): boolean {
    const position = this.positionOf(id);
    if (position < 0) return false;
    this.changed();
    this.deleteId(id);
    this.removeAt(position);
    this.touchFrom(position);
    return true;
  }

  get(id: string): WindowEntry | null {
    const i = this.positionOf(id);
    if (i < 0) return null;
    const values = this.vals?.[i];
    const timestamp = this.ts[i] as number;
    const amount = this.amountAt(i);
    return values === undefined ? { id, timestamp, amount } : { id, timestamp, amount, values };
  }

  entries(): WindowEntry[] {
    const out: WindowEntry[] = [];
    for (let i = this.head; i < this.ts.length; i++) {
      const values = this.vals?.[i];
      const id = this.ids[i] as string;
      const timestamp = this.ts[i] as number;
      const amount = this.amountAt(i);
      out.push(values === undefined ? { id, timestamp, amount } : { id, timestamp, amount, values });
    }
    return out;
  }

  count(start: number, end: number, excludeId?: string): number {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return 0;
    return this.excludedIn(lo, hi, excludeId) < 0 ? hi - lo : hi - lo - 1;
  }

  sum(start: number, end: number, excludeId?: string): bigint {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return 0n;
    const skip = this.excludedIn(lo, hi, excludeId);
    if (skip < 0 || !this.hasAmountAt(skip)) return this.rangeSum(lo, hi);
    if (this.bigPs === null) {
      // Each part is exact; their sum is too while it stays in the exact range.
      const total = (this.ps[skip] as number) - (this.ps[lo] as number) + ((this.ps[hi] as number) - (this.ps[skip + 1] as number));
      if (total <= NUMBER_LIMIT && total >= -NUMBER_LIMIT) return BigInt(total);
    }
    return this.rangeSum(lo, skip) + this.rangeSum(skip + 1, hi);
  }

  amountCount(start: number, end: number, excludeId?: string): number {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return 0;
    const n = (this.pc[hi] as number) - (this.pc[lo] as number);
    const skip = this.excludedIn(lo, hi, excludeId);
    return skip >= 0 && this.hasAmountAt(skip) ? n - 1 : n;
  }

  min(start: number, end: number, excludeId?: string): bigint | null {
    return this.extreme(start, end, excludeId, false);
  }

  max(start: number, end: number, excludeId?: string): bigint | null {
    return this.extreme(start, end, excludeId, true);
  }

  countIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): number {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo || values.length === 0) return 0;
    const skip = this.excludedIn(lo, hi, excludeId);
    if (hi - lo < CURSOR_MIN_RANGE) {
      this.scannedValue += hi - lo;
      let n = 0;
      for (let i = lo; i < hi; i++) {
        if (i === skip) continue;
        const value = this.distinctValue(i, field);
        if (value !== undefined && values.includes(value)) n += 1;
      }
      return n;
    }
    const { counts } = this.cursorFor(field, lo, hi);
    const excludedValue = skip < 0 ? undefined : this.distinctValue(skip, field);
    const listed = distinctListing(values);
    let n = 0;
    if (Array.isArray(listed)) for (let i = 0; i < listed.length; i++) n += counts.get(listed[i] as string) ?? 0;
    else for (const v of listed as ReadonlySet<string>) n += counts.get(v) ?? 0;
    if (excludedValue !== undefined && isListed(listed, excludedValue)) n -= 1;
    return n;
  }

  sumIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): bigint {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    if (hi <= lo || values.length === 0) return 0n;
    const skip = this.excludedIn(lo, hi, excludeId);
    if (hi - lo < CURSOR_MIN_RANGE) {
      this.scannedValue += hi - lo;
      let total = 0n;
      for (let i = lo; i < hi; i++) {
        if (i === skip) continue;
        const value = this.distinctValue(i, field);
        if (value === undefined || !values.includes(value)) continue;
        const amount = this.amountAt(i);
        if (amount === null) continue;
        total += amount;
      }
      return total;
    }
    const sums = this.cursorFor(field, lo, hi, true).sums as Map<string, bigint>;
    const listed = distinctListing(values);
    let total = 0n;
    if (Array.isArray(listed)) for (let i = 0; i < listed.length; i++) total += sums.get(listed[i] as string) ?? 0n;
    else for (const v of listed as ReadonlySet<string>) total += sums.get(v) ?? 0n;
    if (skip >= 0) {
      const amount = this.amountAt(skip);
      const excludedValue = this.distinctValue(skip, field);
      if (amount !== null && excludedValue !== undefined && isListed(listed, excludedValue)) total -= amount;
    }
    return total;
  }

  lastAmountCount(start: number, end: number, limit: number, excludeId?: string): number {
    const range = this.findLastRange(start, end, limit, excludeId);
    if (range === null) return 0;
    const { from, to, skip } = range;
    const n = (this.pc[to] as number) - (this.pc[from] as number);
    return skip >= from && this.hasAmountAt(skip) ? n - 1 : n;
  }

  lastMin(start: number, end: number, limit: number, excludeId?: string): bigint | null {
    const range = this.findLastRange(start, end, limit, excludeId);
    return range === null ? null : this.extremeAround(range.from, range.to, range.skip, false);
  }

  lastMax(start: number, end: number, limit: number, excludeId?: string): bigint | null {
    const range = this.findLastRange(start, end, limit, excludeId);
    return range === null ? null : this.extremeAround(range.from, range.to, range.skip, true);
  }

  lastEntries(start: number, end: number, limit: number, excludeId?: string): WindowEntry[] {
    const range = this.findLastRange(start, end, limit, excludeId);
    if (range === null) return [];
    const { from, to, skip } = range;
    this.scannedValue += to - from;
    const out: WindowEntry[] = [];
    for (let i = from; i < to; i++) {
      if (i === skip) continue;
      const values = this.vals?.[i];
      const id = this.ids[i] as string;
      const timestamp = this.ts[i] as number;
      const amount = this.amountAt(i);
      out.push(values === undefined ? { id, timestamp, amount } : { id, timestamp, amount, values });
    }
    return out;
  }

  latest(start: number, end: number, excludeId?: string): number | null {
    const lo = this.startOf(start);
    let i = this.upperBound(end) - 1;
    // At most one entry is excluded, so at most one step back.
    if (i >= lo && excludeId !== undefined && this.ids[i] === excludeId) i -= 1;
    return i >= lo ? (this.ts[i] as number) : null;
  }

  /**
   * Distinct values of `field` in a range shorter than CURSOR_MIN_RANGE, entry `skip` left out and
   * `extra` counted in: each value is compared with the ones before it (a few dozen comparisons at
   * most), which allocates nothing — a set per query was a large share of the allocations.
   */
  private distinctInShortRange(lo: number, hi: number, field: string, skip: number, extra: string | undefined): number {
    let size = 0;
    let extraSeen = extra === undefined;
    for (let i = lo; i < hi; i++) {
      if (i === skip) continue;
      const value = this.distinctValue(i, field);
      if (value === undefined) continue;
      if (value === extra) extraSeen = true;
      let repeated = false;
      for (let j = lo; j < i && !repeated; j++) repeated = j !== skip && this.distinctValue(j, field) === value;
      if (!repeated) size += 1;
    }
    return extraSeen ? size : size + 1;
  }

  distinctCount(start: number, end: number, field: string, excludeId?: string, includeValue?: string): number {
    const lo = this.startOf(start);
    const hi = this.upperBound(end);
    const extra = includeValue !== undefined && includeValue !== '' ? includeValue : undefined;
    if (hi <= lo) return extra === undefined ? 0 : 1;
    const skip = this.excludedIn(lo, hi, excludeId);
    const excludedValue = skip < 0 ? undefined : this.distinctValue(skip, field);
    if (hi - lo < CURSOR_MIN_RANGE) {
      this.scannedValue += hi - lo;
      return this.distinctInShortRange(lo, hi, field, skip, extra);
    }
    const { counts } = this.cursorFor(field, lo, hi);
    // The cursor holds every entry of the range: take the excluded one out, the extra value in.
    let size = excludedValue !== undefined && counts.get(excludedValue) === 1 ? counts.size - 1 : counts.size;
    if (extra !== undefined && (counts.get(extra) ?? 0) - (extra === excludedValue ? 1 : 0) <= 0) size += 1;
    return size;
  }

  visitLast(
    start: number,
    end: number,
    limit: number,
    field: string,
    excludeId: string | undefined,
    visit: (timestamp: number, value: string | undefined) => void,
  ): void {
    const range = this.findLastRange(start, end, limit, excludeId);
    if (range === null) return;
    for (let i = range.from; i < range.to; i++) {
      if (i === range.skip) continue;
      this.scannedValue += 1;
      visit(this.ts[i] as number, this.distinctValue(i, field));
    }
  }

  pruneBefore(horizon: number): number {
    if (!(horizon > this.retainedFromValue)) return 0;
    this.retainedFromValue = horizon;
    const cut = this.lowerBound(horizon);
    const dropped = cut - this.head;
    if (dropped === 0) return 0;
    for (let i = this.head; i < cut; i++) this.deleteId(this.ids[i] as string);
    this.head = cut;
    this.prunedCountValue += dropped;
    this.changed();
    // Cursors over pruned positions would be misplaced once the arrays are compacted.
    this.cursors = this.cursors.filter((cursor) => cursor.lo >= this.head);
    if (this.head * 2 >= this.ts.length) this.compact();
    return dropped;
  }
}
