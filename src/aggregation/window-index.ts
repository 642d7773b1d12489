/**
 * The history of one aggregation key (one user, one counterparty pair, one IP …), indexed for
 * windowed aggregates over closed time intervals [start, end].
 *
 * This is the only mutable data structure of the core; an adapter (the memory repositories, the
 * engine's per-tenant cache) owns each instance and serialises writes to it.
 *
 * ## Layout and costs (n = entries held)
 *
 * Entries live in parallel arrays sorted by (timestamp, id), plus prefix sums of the amounts and
 * prefix counts of the entries that have an amount, and a Map id → entry.
 *
 * | operation | cost |
 * |---|---|
 * | `count`, `sum`, `amountCount` (with or without `excludeId`) | O(log n): two binary searches, prefix differences; `excludeId` is one Map lookup |
 * | `upsert` of a new entry at or after the last one (timestamps mostly increase) | amortised O(1) plus one O(log n) search |
 * | `upsert` out of order, replacing an entry, `remove` | O(d): d = entries after the touched position (prefixes are recomputed from there); small in practice since late arrivals and updates are recent |
 * | `min`, `max` | O(B + k/B), k = entries in the range, B = 64: block summaries of 64 entries, computed lazily on the first min/max query, so keys never asked for min/max pay nothing |
 * | `distinctCount` | ranges under 32 entries: a scan. Larger ranges: up to 4 cursors per index keep a multiset of the values of a previous range and move their boundaries, so the common "window slides forward" pattern costs O(entries entering + leaving); a cursor is rebuilt (O(k)) when moving it would cost more than rescanning or after a change before its end |
 * | `countIn` | as `distinctCount` (same cursors), plus O(\|values\|) |
 * | `sumIn` | as `countIn`; its cursors also keep a per-value sum of the amounts (a cursor with sums serves counts too, one without is not used for sums) |
 * | `lastAmountCount` | O(log n): the last `limit` entries are a position range, answered from the prefixes |
 * | `lastMin`, `lastMax` | as `min`, `max` over that position range: O(log n + B + limit/B) |
 * | `pruneBefore` | O(log n + pruned); storage is compacted (O(n)) only once at least half the arrays are pruned, so compaction is amortised O(1) per pruned entry |
 *
 * Entries are stored as copies; `values` objects are kept by reference and must not be mutated.
 */
import { TxmonError } from '../errors.js';

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
  /** Timestamp of the latest entry in [start, end] other than `excludeId`, `null` when none. O(log n). */
  latest(start: number, end: number, excludeId?: string): number | null;
  /**
   * Number of distinct non-empty `values[field]` among the entries in [start, end] other than
   * `excludeId`; `includeValue` counts as present too (see `AggregateQuery.includeValue`).
   */
  distinctCount(start: number, end: number, field: string, excludeId?: string, includeValue?: string): number;
  /**
   * Drops every entry with `timestamp < horizon` (a retention horizon); returns how many.
   * A horizon lower than an earlier one drops nothing more and leaves `retainedFrom` unchanged.
   */
  pruneBefore(horizon: number): number;
}

/** Entries per min/max block summary. */
const BLOCK = 64;
/** Ranges smaller than this are scanned by `distinctCount` instead of using a cursor. */
const CURSOR_MIN_RANGE = 32;
/** Cursors kept per index (least recently used one is replaced). */
const MAX_CURSORS = 4;

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

/** The {@link WindowIndex} implementation: a class, so an index is cheap to create and its calls stay monomorphic. */
class ArrayWindowIndex implements WindowIndex {
  // Physical arrays; positions [0, head) are pruned and wait for compaction.
  private ts: number[] = [];
  private ids: string[] = [];
  private recs: WindowEntry[] = [];
  // prefixSum[i] / prefixAmountCount[i]: over physical positions [0, i); length = n + 1.
  private prefixSum: bigint[] = [0n];
  private prefixAmountCount: number[] = [0];
  private head = 0;
  private readonly byId = new Map<string, WindowEntry>();
  // Lazy min/max summaries of full blocks [b·BLOCK, (b+1)·BLOCK); valid for b < validBlocks.
  private readonly blockMin: (bigint | null)[] = [];
  private readonly blockMax: (bigint | null)[] = [];
  private validBlocks = 0;
  private cursors: DistinctCursor[] = [];
  private clock = 0;
  private prunedCountValue = 0;
  private retainedFromValue = -Infinity;

  /** First physical position in [head, n) whose timestamp is ≥ t (n when none). */
  private lowerBound(t: number): number {
    let lo = this.head;
    let hi = this.ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ts[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First physical position in [head, n) whose timestamp is > t (n when none). */
  private upperBound(t: number): number {
    let lo = this.head;
    let hi = this.ts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.ts[mid] as number) <= t) lo = mid + 1;
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

  /** Recomputes prefixes for positions ≥ from and drops summaries that covered them. */
  private touchFrom(from: number): void {
    const n = this.ts.length;
    this.prefixSum.length = from + 1;
    this.prefixAmountCount.length = from + 1;
    let s = this.prefixSum[from] as bigint;
    let c = this.prefixAmountCount[from] as number;
    for (let i = from; i < n; i++) {
      const amount = (this.recs[i] as WindowEntry).amount;
      if (amount !== null) {
        s += amount;
        c += 1;
      }
      this.prefixSum.push(s);
      this.prefixAmountCount.push(c);
    }
    const firstBlock = Math.floor(from / BLOCK);
    if (this.validBlocks > firstBlock) this.validBlocks = firstBlock;
    if (this.cursors.some((cursor) => cursor.hi > from)) this.cursors = this.cursors.filter((cursor) => cursor.hi <= from);
  }

  private insertAt(position: number, entry: WindowEntry): void {
    if (position === this.ts.length) {
      this.ts.push(entry.timestamp);
      this.ids.push(entry.id);
      this.recs.push(entry);
    } else {
      this.ts.splice(position, 0, entry.timestamp);
      this.ids.splice(position, 0, entry.id);
      this.recs.splice(position, 0, entry);
    }
  }

  private removeAt(position: number): void {
    this.ts.splice(position, 1);
    this.ids.splice(position, 1);
    this.recs.splice(position, 1);
  }

  /** Physical position of a held entry. */
  private positionOf(entry: WindowEntry): number {
    return this.slotOf(entry.timestamp, entry.id);
  }

  /** The excluded entry when it exists and lies in [start, end]; else undefined. */
  private excludedIn(start: number, end: number, excludeId: string | undefined): WindowEntry | undefined {
    if (excludeId === undefined) return undefined;
    const entry = this.byId.get(excludeId);
    if (entry === undefined || entry.timestamp < start || entry.timestamp > end) return undefined;
    return entry;
  }

  private ensureBlocks(): void {
    const full = Math.floor(this.ts.length / BLOCK);
    this.blockMin.length = this.validBlocks;
    this.blockMax.length = this.validBlocks;
    for (let b = this.validBlocks; b < full; b++) {
      let lo: bigint | null = null;
      let hi: bigint | null = null;
      const end = (b + 1) * BLOCK;
      for (let i = b * BLOCK; i < end; i++) {
        const amount = (this.recs[i] as WindowEntry).amount;
        if (amount === null) continue;
        if (lo === null || amount < lo) lo = amount;
        if (hi === null || amount > hi) hi = amount;
      }
      this.blockMin.push(lo);
      this.blockMax.push(hi);
    }
    this.validBlocks = full;
  }

  /** Min (`wantMax` false) or max of the non-null amounts at physical positions [from, to). */
  private extremeOf(from: number, to: number, wantMax: boolean): bigint | null {
    let best: bigint | null = null;
    const consider = (amount: bigint | null): void => {
      if (amount === null) return;
      if (best === null || (wantMax ? amount > best : amount < best)) best = amount;
    };
    const firstFull = Math.ceil(from / BLOCK);
    const lastFull = Math.floor(to / BLOCK);
    if (lastFull - firstFull < 1) {
      for (let i = from; i < to; i++) consider((this.recs[i] as WindowEntry).amount);
      return best;
    }
    this.ensureBlocks();
    const summaries = wantMax ? this.blockMax : this.blockMin;
    for (let i = from; i < firstFull * BLOCK; i++) consider((this.recs[i] as WindowEntry).amount);
    for (let b = firstFull; b < lastFull; b++) consider(summaries[b] as bigint | null);
    for (let i = lastFull * BLOCK; i < to; i++) consider((this.recs[i] as WindowEntry).amount);
    return best;
  }

  private extreme(start: number, end: number, excludeId: string | undefined, wantMax: boolean): bigint | null {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return null;
    const excluded = this.excludedIn(start, end, excludeId);
    return this.extremeAround(lo, hi, excluded === undefined ? -1 : this.positionOf(excluded), wantMax);
  }

  /** Min or max over physical [from, to) leaving out position `skip` (−1 or outside: none). */
  private extremeAround(from: number, to: number, skip: number, wantMax: boolean): bigint | null {
    if (skip < from || skip >= to) return this.extremeOf(from, to, wantMax);
    const left = this.extremeOf(from, skip, wantMax);
    const right = this.extremeOf(skip + 1, to, wantMax);
    if (left === null) return right;
    if (right === null) return left;
    return (wantMax ? right > left : right < left) ? right : left;
  }

  /**
   * The last `limit` entries of [start, end] other than `excludeId`, as the physical range
   * [from, to) plus the position `skip` of the excluded entry (−1 when it is not inside): the
   * range holds one more position when the excluded entry is among the last ones. `null` when
   * the window is empty or `limit` is not positive.
   */
  private findLastRange(start: number, end: number, limit: number, excludeId: string | undefined): { from: number; to: number; skip: number } | null {
    if (!(limit > 0)) return null;
    const lo = this.lowerBound(start);
    const to = this.upperBound(end);
    if (to <= lo) return null;
    const excluded = this.excludedIn(start, end, excludeId);
    const skip = excluded === undefined ? -1 : this.positionOf(excluded);
    let from = to - limit;
    if (skip >= 0 && skip >= from) from -= 1;
    return { from: Math.max(lo, from), to, skip };
  }

  private distinctValue(entry: WindowEntry, field: string): string | undefined {
    const value = entry.values?.[field];
    return typeof value === 'string' && value !== '' ? value : undefined;
  }

  private moveCursor(cursor: DistinctCursor, lo: number, hi: number): void {
    const { counts, sums, field } = cursor;
    const add = (from: number, to: number): void => {
      for (let i = from; i < to; i++) {
        const entry = this.recs[i] as WindowEntry;
        const value = this.distinctValue(entry, field);
        if (value === undefined) continue;
        counts.set(value, (counts.get(value) ?? 0) + 1);
        if (sums !== null && entry.amount !== null) sums.set(value, (sums.get(value) ?? 0n) + entry.amount);
      }
    };
    const drop = (from: number, to: number): void => {
      for (let i = from; i < to; i++) {
        const entry = this.recs[i] as WindowEntry;
        const value = this.distinctValue(entry, field);
        if (value === undefined) continue;
        const left = (counts.get(value) as number) - 1;
        if (left === 0) {
          counts.delete(value);
          sums?.delete(value);
        } else {
          counts.set(value, left);
          if (sums !== null && entry.amount !== null) sums.set(value, (sums.get(value) as bigint) - entry.amount);
        }
      }
    };
    // Grow before shrinking so that counts never go below zero, also for disjoint ranges.
    if (hi > cursor.hi) add(cursor.hi, hi);
    if (lo < cursor.lo) add(lo, cursor.lo);
    if (hi < cursor.hi) drop(hi, cursor.hi);
    if (lo > cursor.lo) drop(cursor.lo, lo);
    cursor.lo = lo;
    cursor.hi = hi;
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
    const base = this.prefixSum[this.head] as bigint;
    const baseCount = this.prefixAmountCount[this.head] as number;
    this.ts = this.ts.slice(this.head);
    this.ids = this.ids.slice(this.head);
    this.recs = this.recs.slice(this.head);
    this.prefixSum = this.prefixSum.slice(this.head).map((s) => s - base);
    this.prefixAmountCount = this.prefixAmountCount.slice(this.head).map((c) => c - baseCount);
    this.head = 0;
    this.validBlocks = 0;
    this.cursors = [];
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

  upsert(entry: WindowEntry): void {
    const { id, timestamp, amount } = entry;
    if (!Number.isFinite(timestamp)) {
      throw new TxmonError('VALIDATION_FAILED', 'Invalid window entry: /timestamp must be a finite number', [
        { path: '/timestamp', code: 'type', message: 'must be a finite number' },
      ]);
    }
    const stored: WindowEntry =
      entry.values === undefined ? { id, timestamp, amount } : { id, timestamp, amount, values: entry.values };
    const previous = this.byId.get(id);
    if (previous !== undefined && previous.timestamp === timestamp && previous.amount === amount && sameValues(previous.values, entry.values)) {
      // The same entry again (an event that changed nothing this index keeps): nothing to do.
      return;
    }
    this.byId.set(id, stored);
    const n = this.ts.length;
    if (previous === undefined && (n === this.head || timestamp > (this.ts[n - 1] as number) || (timestamp === this.ts[n - 1] && id > (this.ids[n - 1] as string)))) {
      // The common case, a new entry after all others: append and extend the prefixes, O(1).
      // Block summaries only cover full blocks before the end and this.cursors end at or before it,
      // so neither needs invalidating.
      this.ts.push(timestamp);
      this.ids.push(id);
      this.recs.push(stored);
      const s = this.prefixSum[n] as bigint;
      const c = this.prefixAmountCount[n] as number;
      this.prefixSum.push(amount === null ? s : s + amount);
      this.prefixAmountCount.push(amount === null ? c : c + 1);
      return;
    }
    if (previous !== undefined && previous.timestamp === timestamp) {
      // Same (timestamp, id): same slot, replace in place.
      const position = this.positionOf(previous);
      this.recs[position] = stored;
      this.touchFrom(position);
      return;
    }
    let dirty = this.ts.length;
    if (previous !== undefined) {
      const old = this.positionOf(previous);
      this.removeAt(old);
      dirty = old;
    }
    const position = this.slotOf(timestamp, id);
    this.insertAt(position, stored);
    this.touchFrom(Math.min(dirty, position));
  }

  remove(id: string): boolean {
    const previous = this.byId.get(id);
    if (previous === undefined) return false;
    this.byId.delete(id);
    const position = this.positionOf(previous);
    this.removeAt(position);
    this.touchFrom(position);
    return true;
  }

  get(id: string): WindowEntry | null {
    return this.byId.get(id) ?? null;
  }

  entries(): WindowEntry[] {
    return this.recs.slice(this.head);
  }

  count(start: number, end: number, excludeId?: string): number {
    const n = this.upperBound(end) - this.lowerBound(start);
    if (n <= 0) return 0;
    return this.excludedIn(start, end, excludeId) === undefined ? n : n - 1;
  }

  sum(start: number, end: number, excludeId?: string): bigint {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return 0n;
    const total = (this.prefixSum[hi] as bigint) - (this.prefixSum[lo] as bigint);
    const excluded = this.excludedIn(start, end, excludeId);
    return excluded === undefined || excluded.amount === null ? total : total - excluded.amount;
  }

  amountCount(start: number, end: number, excludeId?: string): number {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    if (hi <= lo) return 0;
    const n = (this.prefixAmountCount[hi] as number) - (this.prefixAmountCount[lo] as number);
    const excluded = this.excludedIn(start, end, excludeId);
    return excluded === undefined || excluded.amount === null ? n : n - 1;
  }

  min(start: number, end: number, excludeId?: string): bigint | null {
    return this.extreme(start, end, excludeId, false);
  }

  max(start: number, end: number, excludeId?: string): bigint | null {
    return this.extreme(start, end, excludeId, true);
  }

  countIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): number {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    if (hi <= lo || values.length === 0) return 0;
    const excluded = this.excludedIn(start, end, excludeId);
    if (hi - lo < CURSOR_MIN_RANGE) {
      let n = 0;
      for (let i = lo; i < hi; i++) {
        const entry = this.recs[i] as WindowEntry;
        if (entry === excluded) continue;
        const value = this.distinctValue(entry, field);
        if (value !== undefined && values.includes(value)) n += 1;
      }
      return n;
    }
    const { counts } = this.cursorFor(field, lo, hi);
    const excludedValue = excluded === undefined ? undefined : this.distinctValue(excluded, field);
    let n = 0;
    const seen = new Set<string>();
    for (const v of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      n += counts.get(v) ?? 0;
    }
    if (excludedValue !== undefined && seen.has(excludedValue)) n -= 1;
    return n;
  }

  sumIn(start: number, end: number, field: string, values: readonly string[], excludeId?: string): bigint {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    if (hi <= lo || values.length === 0) return 0n;
    const excluded = this.excludedIn(start, end, excludeId);
    if (hi - lo < CURSOR_MIN_RANGE) {
      let total = 0n;
      for (let i = lo; i < hi; i++) {
        const entry = this.recs[i] as WindowEntry;
        if (entry === excluded || entry.amount === null) continue;
        const value = this.distinctValue(entry, field);
        if (value !== undefined && values.includes(value)) total += entry.amount;
      }
      return total;
    }
    const sums = this.cursorFor(field, lo, hi, true).sums as Map<string, bigint>;
    let total = 0n;
    const seen = new Set<string>();
    for (const v of values) {
      if (seen.has(v)) continue;
      seen.add(v);
      total += sums.get(v) ?? 0n;
    }
    if (excluded !== undefined && excluded.amount !== null) {
      const excludedValue = this.distinctValue(excluded, field);
      if (excludedValue !== undefined && seen.has(excludedValue)) total -= excluded.amount;
    }
    return total;
  }

  lastAmountCount(start: number, end: number, limit: number, excludeId?: string): number {
    const range = this.findLastRange(start, end, limit, excludeId);
    if (range === null) return 0;
    const { from, to, skip } = range;
    const n = (this.prefixAmountCount[to] as number) - (this.prefixAmountCount[from] as number);
    return skip >= from && (this.recs[skip] as WindowEntry).amount !== null ? n - 1 : n;
  }

  lastMin(start: number, end: number, limit: number, excludeId?: string): bigint | null {
    const range = this.findLastRange(start, end, limit, excludeId);
    return range === null ? null : this.extremeAround(range.from, range.to, range.skip, false);
  }

  lastMax(start: number, end: number, limit: number, excludeId?: string): bigint | null {
    const range = this.findLastRange(start, end, limit, excludeId);
    return range === null ? null : this.extremeAround(range.from, range.to, range.skip, true);
  }

  latest(start: number, end: number, excludeId?: string): number | null {
    const lo = this.lowerBound(start);
    let i = this.upperBound(end) - 1;
    // At most one entry is excluded, so at most one step back.
    if (i >= lo && excludeId !== undefined && this.ids[i] === excludeId) i -= 1;
    return i >= lo ? (this.ts[i] as number) : null;
  }

  distinctCount(start: number, end: number, field: string, excludeId?: string, includeValue?: string): number {
    const lo = this.lowerBound(start);
    const hi = this.upperBound(end);
    const extra = includeValue !== undefined && includeValue !== '' ? includeValue : undefined;
    if (hi <= lo) return extra === undefined ? 0 : 1;
    const excluded = this.excludedIn(start, end, excludeId);
    const excludedValue = excluded === undefined ? undefined : this.distinctValue(excluded, field);
    if (hi - lo < CURSOR_MIN_RANGE) {
      const seen = new Set<string>();
      for (let i = lo; i < hi; i++) {
        const entry = this.recs[i] as WindowEntry;
        if (entry === excluded) continue;
        const value = this.distinctValue(entry, field);
        if (value !== undefined) seen.add(value);
      }
      if (extra !== undefined) seen.add(extra);
      return seen.size;
    }
    const { counts } = this.cursorFor(field, lo, hi);
    // The cursor holds every entry of the range: take the excluded one out, the extra value in.
    const live = (value: string) => (counts.get(value) ?? 0) - (value === excludedValue ? 1 : 0);
    let size = excludedValue !== undefined && counts.get(excludedValue) === 1 ? counts.size - 1 : counts.size;
    if (extra !== undefined && live(extra) <= 0) size += 1;
    return size;
  }

  pruneBefore(horizon: number): number {
    if (!(horizon > this.retainedFromValue)) return 0;
    this.retainedFromValue = horizon;
    const cut = this.lowerBound(horizon);
    const dropped = cut - this.head;
    if (dropped === 0) return 0;
    for (let i = this.head; i < cut; i++) this.byId.delete(this.ids[i] as string);
    this.head = cut;
    this.prunedCountValue += dropped;
    // Cursors over pruned positions would be misplaced once the arrays are compacted.
    this.cursors = this.cursors.filter((cursor) => cursor.lo >= this.head);
    if (this.head * 2 >= this.ts.length) this.compact();
    return dropped;
  }
}
