import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { createWindowIndex, type WindowEntry, type WindowIndex } from '../../src/aggregation/window-index.js';
import { computeAggregate, queryIndex, type AggregateFunction, type SeriesEntry } from '../../src/aggregation/aggregate-store.js';
import { isTxmonError } from '../../src/errors.js';

const T0 = 1_700_000_000_000;

function indexOf(entries: readonly WindowEntry[]): WindowIndex {
  const index = createWindowIndex();
  for (const entry of entries) index.upsert(entry);
  return index;
}

/** The `limit` of the `last…` functions in one check. */
interface LastParams {
  readonly limit: number;
}

/** The default `last…` parameters of `ask` (and of the matching reference queries). */
const LAST: LastParams = { limit: 3 };

/** Limits every model check runs the `last…` functions with: 0, 1, a few, across block boundaries (64), beyond the history. */
const LAST_VARIANTS: readonly LastParams[] = [LAST, { limit: 0 }, { limit: 1 }, { limit: 40 }, { limit: 70 }, { limit: 150 }, { limit: 100_000 }];
const LAST_FUNCTIONS: ReadonlySet<AggregateFunction> = new Set(['lastAmountCount', 'lastMin', 'lastMax', 'lastEntries']);

/** A `limit` as `fn` accepts it: `lastEntries` takes at most 1,000 (its answer is a list). */
function limitOf(fn: AggregateFunction, limit: number): number {
  return fn === 'lastEntries' ? Math.min(limit, 1000) : limit;
}

/** The value set every `countIn` / `sumIn` check of this file uses (in `ask` and in the reference queries). */
const COUNT_IN_VALUES: readonly string[] = ['x', 'v1', 'v5', 'a', '7'];

const FUNCTIONS: readonly AggregateFunction[] = [
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
  'lastEntries',
];

/** 2^52: amounts and prefix sums within ±2^52 are kept as numbers, beyond as bigints. */
const L = 2n ** 52n;
/** The largest amount still kept as a number; odd, so sums of a few need more than 53 bits. */
const A = L - 1n;
/** Limits `checkAll` runs the `last…` functions with: 0, 1, a few, around block boundaries (64), beyond the history. */
const LIMITS: readonly number[] = [0, 1, 3, 63, 64, 65, 130, 100_000];
const IN_VALUES: readonly string[] = ['x', 'y', 'v1', 'v3'];

/** The reference query of `ask`. */
function referenceQuery(fn: AggregateFunction, start: number, end: number, field: string, excludeId?: string, last: LastParams = LAST) {
  return {
    series: 's',
    key: 'k',
    start,
    end,
    fn,
    field,
    values: COUNT_IN_VALUES,
    limit: limitOf(fn, last.limit),
    ...(excludeId === undefined ? {} : { excludeId }),
  };
}

/** Every function (every limit for the `last…` ones, both fields for value functions) against the reference. */
function checkAll(index: WindowIndex, model: Map<string, WindowEntry>, start: number, end: number, excludeId: string | undefined, label = ''): void {
  const reference: SeriesEntry[] = [...model.values()].map((e) => ({ ...e, series: 's', key: 'k' }));
  for (const fn of FUNCTIONS) {
    for (const field of fn === 'distinct' || fn === 'countIn' || fn === 'sumIn' ? ['cp', 'country'] : ['cp']) {
      for (const limit of LAST_FUNCTIONS.has(fn) ? LIMITS : [1]) {
        const q = {
          series: 's',
          key: 'k',
          start,
          end,
          fn,
          field,
          values: IN_VALUES,
          limit: limitOf(fn, limit),
          ...(excludeId === undefined ? {} : { excludeId }),
        };
        expect(queryIndex(index, q), `${label} ${fn}(${field}) [${start}, ${end}] excl ${excludeId} limit ${limit}`).toEqual(computeAggregate(reference, q));
      }
    }
  }
}

function checkShape(index: WindowIndex, model: Map<string, WindowEntry>, prunedCount: number, retainedFrom: number): void {
  const all = sortedModel(model);
  expect(index.size).toBe(model.size);
  expect(index.firstTimestamp).toBe(all[0]?.timestamp ?? null);
  expect(index.lastTimestamp).toBe(all[all.length - 1]?.timestamp ?? null);
  expect(index.prunedCount).toBe(prunedCount);
  expect(index.retainedFrom).toBe(retainedFrom);
}

function indexWithModel(entries: readonly WindowEntry[]): { index: WindowIndex; model: Map<string, WindowEntry> } {
  const index = createWindowIndex();
  const model = new Map<string, WindowEntry>();
  for (const entry of entries) {
    index.upsert(entry);
    model.set(entry.id, entry);
  }
  return { index, model };
}

function pruneBoth(index: WindowIndex, model: Map<string, WindowEntry>, horizon: number): void {
  for (const [id, e] of model) if (e.timestamp < horizon) model.delete(id);
  index.pruneBefore(horizon);
}

const sample: WindowEntry[] = [
  { id: 'a', timestamp: T0, amount: 500n, values: { cp: 'x' } },
  { id: 'b', timestamp: T0 + 1000, amount: null, values: { cp: 'y' } },
  { id: 'c', timestamp: T0 + 1000, amount: -200n, values: { cp: 'x' } },
  { id: 'd', timestamp: T0 + 2000, amount: 900n, values: { cp: '' } },
  { id: 'e', timestamp: T0 + 3000, amount: 100n },
];

describe('createWindowIndex', () => {
  it('starts empty', () => {
    const index = createWindowIndex();
    expect(index.size).toBe(0);
    expect(index.firstTimestamp).toBeNull();
    expect(index.lastTimestamp).toBeNull();
    expect(index.entries()).toEqual([]);
    expect(index.get('a')).toBeNull();
  });

  it('orders entries by timestamp, then id, whatever the insertion order', () => {
    const index = indexOf([sample[4], sample[2], sample[0], sample[3], sample[1]] as WindowEntry[]);
    expect(index.entries().map((e) => e.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(index.firstTimestamp).toBe(T0);
    expect(index.lastTimestamp).toBe(T0 + 3000);
  });

  it('upsert of a held id replaces it and moves it to its new timestamp', () => {
    const index = indexOf(sample);
    index.upsert({ id: 'a', timestamp: T0 + 2500, amount: 7n });
    expect(index.size).toBe(5);
    expect(index.entries().map((e) => e.id)).toEqual(['b', 'c', 'd', 'a', 'e']);
    expect(index.get('a')).toEqual({ id: 'a', timestamp: T0 + 2500, amount: 7n });
    expect(index.sum(T0, T0 + 3000)).toBe(-200n + 900n + 7n + 100n);
  });

  it('upsert keeps a copy, so later changes to the argument do not leak in', () => {
    const index = createWindowIndex();
    const entry = { id: 'a', timestamp: T0, amount: 1n as bigint | null };
    index.upsert(entry);
    entry.amount = 99n;
    expect(index.sum(T0, T0)).toBe(1n);
  });

  it('remove reports whether the id was held', () => {
    const index = indexOf(sample);
    expect(index.remove('c')).toBe(true);
    expect(index.remove('c')).toBe(false);
    expect(index.remove('zzz')).toBe(false);
    expect(index.size).toBe(4);
    expect(index.sum(T0, T0 + 3000)).toBe(1500n);
  });

  it('rejects a non-finite timestamp with VALIDATION_FAILED at /timestamp and changes nothing', () => {
    const index = indexOf(sample);
    let thrown: unknown;
    try {
      index.upsert({ id: 'a', timestamp: Number.NaN, amount: 1n });
    } catch (error) {
      thrown = error;
    }
    expect(isTxmonError(thrown)).toBe(true);
    if (!isTxmonError(thrown)) return;
    expect(thrown.code).toBe('VALIDATION_FAILED');
    expect(thrown.details.map((d) => d.path)).toEqual(['/timestamp']);
    expect(index.entries()).toEqual(sample);
  });
});

describe('count / sum / amountCount / min / max / distinctCount', () => {
  const index = indexOf(sample);
  const cases: {
    name: string;
    input: { start: number; end: number; excludeId?: string };
    expected: { count: number; sum: bigint; amountCount: number; min: bigint | null; max: bigint | null; distinct: number };
  }[] = [
    {
      name: 'whole history',
      input: { start: T0, end: T0 + 3000 },
      expected: { count: 5, sum: 1300n, amountCount: 4, min: -200n, max: 900n, distinct: 2 },
    },
    {
      name: 'an entry exactly at start is in',
      input: { start: T0 + 2000, end: T0 + 2500 },
      expected: { count: 1, sum: 900n, amountCount: 1, min: 900n, max: 900n, distinct: 0 },
    },
    {
      name: 'an entry 1 ms before start is out',
      input: { start: T0 + 1, end: T0 + 1000 },
      expected: { count: 2, sum: -200n, amountCount: 1, min: -200n, max: -200n, distinct: 2 },
    },
    {
      name: 'an entry exactly at end is in',
      input: { start: T0 - 5000, end: T0 },
      expected: { count: 1, sum: 500n, amountCount: 1, min: 500n, max: 500n, distinct: 1 },
    },
    {
      name: 'an entry 1 ms after end is out',
      input: { start: T0 - 5000, end: T0 + 999 },
      expected: { count: 1, sum: 500n, amountCount: 1, min: 500n, max: 500n, distinct: 1 },
    },
    {
      name: 'a single instant with two entries',
      input: { start: T0 + 1000, end: T0 + 1000 },
      expected: { count: 2, sum: -200n, amountCount: 1, min: -200n, max: -200n, distinct: 2 },
    },
    {
      name: 'fractional bounds around whole-ms entries',
      input: { start: T0 + 999.5, end: T0 + 2000.5 },
      expected: { count: 3, sum: 700n, amountCount: 2, min: -200n, max: 900n, distinct: 2 },
    },
    {
      name: 'start after end is empty',
      input: { start: T0 + 3000, end: T0 },
      expected: { count: 0, sum: 0n, amountCount: 0, min: null, max: null, distinct: 0 },
    },
    {
      name: 'a range before all entries is empty',
      input: { start: T0 - 10, end: T0 - 1 },
      expected: { count: 0, sum: 0n, amountCount: 0, min: null, max: null, distinct: 0 },
    },
    {
      name: 'excludeId inside the range leaves that entry out',
      input: { start: T0, end: T0 + 3000, excludeId: 'd' },
      expected: { count: 4, sum: 400n, amountCount: 3, min: -200n, max: 500n, distinct: 2 },
    },
    {
      name: 'excluding an entry whose value another entry shares keeps the value',
      input: { start: T0, end: T0 + 3000, excludeId: 'a' },
      expected: { count: 4, sum: 800n, amountCount: 3, min: -200n, max: 900n, distinct: 2 },
    },
    {
      name: 'excluding the only entry with a value drops the value',
      input: { start: T0, end: T0 + 3000, excludeId: 'b' },
      expected: { count: 4, sum: 1300n, amountCount: 4, min: -200n, max: 900n, distinct: 1 },
    },
    {
      name: 'excludeId outside the range changes nothing',
      input: { start: T0 + 1000, end: T0 + 3000, excludeId: 'a' },
      expected: { count: 4, sum: 800n, amountCount: 3, min: -200n, max: 900n, distinct: 2 },
    },
    {
      name: 'unknown excludeId changes nothing',
      input: { start: T0, end: T0 + 3000, excludeId: 'nope' },
      expected: { count: 5, sum: 1300n, amountCount: 4, min: -200n, max: 900n, distinct: 2 },
    },
  ];

  it.each(cases)('$name', ({ input, expected }) => {
    const { start, end, excludeId } = input;
    expect({
      count: index.count(start, end, excludeId),
      sum: index.sum(start, end, excludeId),
      amountCount: index.amountCount(start, end, excludeId),
      min: index.min(start, end, excludeId),
      max: index.max(start, end, excludeId),
      distinct: index.distinctCount(start, end, 'cp', excludeId),
    }).toEqual(expected);
  });

  it('sums money exactly: 3 × 3333.33 + 0.01 = 10000.00 in 10^-8 units', () => {
    const money = indexOf([
      { id: '1', timestamp: T0, amount: 333_333_000_000n },
      { id: '2', timestamp: T0 + 1, amount: 333_333_000_000n },
      { id: '3', timestamp: T0 + 2, amount: 333_333_000_000n },
      { id: '4', timestamp: T0 + 3, amount: 1_000_000n },
    ]);
    expect(money.sum(T0, T0 + 3)).toBe(1_000_000_000_000n);
  });

  it('sums beyond the safe-integer range exactly', () => {
    const big = indexOf([
      { id: '1', timestamp: T0, amount: 9_007_199_254_740_993n },
      { id: '2', timestamp: T0, amount: 9_007_199_254_740_993n },
    ]);
    expect(big.sum(T0, T0)).toBe(18_014_398_509_481_986n);
  });

  it('ignores values inherited from Object.prototype in distinct counts', () => {
    const odd = indexOf([{ id: '1', timestamp: T0, amount: null, values: {} }]);
    expect(odd.distinctCount(T0, T0, 'constructor')).toBe(0);
    expect(odd.distinctCount(T0, T0, '__proto__')).toBe(0);
  });
});

describe('sumIn', () => {
  const index = indexOf(sample);
  const cases: { name: string; input: { start: number; end: number; values: string[]; excludeId?: string }; expected: bigint }[] = [
    { name: 'sums the amounts of the entries with a listed value', input: { start: T0, end: T0 + 3000, values: ['x'] }, expected: 300n },
    { name: 'a listed value whose only entry has a null amount adds nothing', input: { start: T0, end: T0 + 3000, values: ['y'] }, expected: 0n },
    { name: 'the empty string is never a value', input: { start: T0, end: T0 + 3000, values: [''] }, expected: 0n },
    { name: 'a value listed twice counts once', input: { start: T0, end: T0 + 3000, values: ['x', 'x', 'y'] }, expected: 300n },
    { name: 'excludeId takes the entry out', input: { start: T0, end: T0 + 3000, values: ['x'], excludeId: 'c' }, expected: 500n },
    { name: 'an entry 1 ms before start is out', input: { start: T0 + 1, end: T0 + 3000, values: ['x'] }, expected: -200n },
    { name: 'no values sums nothing', input: { start: T0, end: T0 + 3000, values: [] }, expected: 0n },
  ];
  it.each(cases)('$name', ({ input, expected }) => {
    expect(index.sumIn(input.start, input.end, 'cp', input.values, input.excludeId)).toBe(expected);
  });
});

describe('lastEntries', () => {
  it('reads at most limit + 1 entries, whatever the history (100,000 entries in the window)', () => {
    const index = createWindowIndex();
    for (let i = 0; i < 100_000; i++) index.upsert({ id: `e${String(i).padStart(6, '0')}`, timestamp: T0 + i, amount: BigInt(i) });
    const before = index.scanned;
    const listed = index.lastEntries(T0, T0 + 99_999, 50, 'e099999');
    expect(listed.map((e) => e.id)).toEqual(Array.from({ length: 50 }, (_, k) => `e${String(99_949 + k).padStart(6, '0')}`));
    expect(index.scanned - before).toBeLessThanOrEqual(51);
  });
});

describe('lastAmountCount / lastMin / lastMax', () => {
  // sample by (timestamp, id): a 500, b null, c -200, d 900, e 100.
  const index = indexOf(sample);
  const all = { start: T0, end: T0 + 3000 };
  const cases: {
    name: string;
    input: { start: number; end: number; limit: number; excludeId?: string };
    expected: { count: number; min: bigint | null; max: bigint | null };
  }[] = [
    { name: 'the last entry only', input: { ...all, limit: 1 }, expected: { count: 1, min: 100n, max: 100n } },
    { name: 'the last two entries', input: { ...all, limit: 2 }, expected: { count: 2, min: 100n, max: 900n } },
    { name: 'a null amount takes a place but adds no amount', input: { ...all, limit: 4 }, expected: { count: 3, min: -200n, max: 900n } },
    { name: 'excludeId skips the entry and looks one further back', input: { ...all, limit: 1, excludeId: 'e' }, expected: { count: 1, min: 900n, max: 900n } },
    {
      name: 'an excluded entry outside the last ones changes nothing',
      input: { ...all, limit: 2, excludeId: 'a' },
      expected: { count: 2, min: 100n, max: 900n },
    },
    {
      name: 'equal timestamps are ordered by id: c is after b',
      input: { start: T0 + 1000, end: T0 + 1000, limit: 1 },
      expected: { count: 1, min: -200n, max: -200n },
    },
    {
      name: 'equal timestamps: excluding c leaves b (null amount)',
      input: { start: T0 + 1000, end: T0 + 1000, limit: 1, excludeId: 'c' },
      expected: { count: 0, min: null, max: null },
    },
    {
      name: 'a limit beyond the window covers the window only',
      input: { start: T0 + 2000, end: T0 + 3000, limit: 100 },
      expected: { count: 2, min: 100n, max: 900n },
    },
    {
      name: 'the window end bounds the look-back: later entries are not "last"',
      input: { start: -Infinity, end: T0 + 999, limit: 1 },
      expected: { count: 1, min: 500n, max: 500n },
    },
    { name: 'limit 0 covers nothing', input: { ...all, limit: 0 }, expected: { count: 0, min: null, max: null } },
    { name: 'an empty window covers nothing', input: { start: T0 + 3001, end: T0 + 4000, limit: 5 }, expected: { count: 0, min: null, max: null } },
  ];
  it.each(cases)('$name', ({ input, expected }) => {
    const { start, end, limit, excludeId } = input;
    expect({
      count: index.lastAmountCount(start, end, limit, excludeId),
      min: index.lastMin(start, end, limit, excludeId),
      max: index.lastMax(start, end, limit, excludeId),
    }).toEqual(expected);
  });
});

describe('pruneBefore', () => {
  it('drops entries strictly before the horizon and keeps the one at it', () => {
    const index = indexOf(sample);
    expect(index.pruneBefore(T0 + 1000)).toBe(1);
    expect(index.entries().map((e) => e.id)).toEqual(['b', 'c', 'd', 'e']);
    expect(index.get('a')).toBeNull();
    expect(index.prunedCount).toBe(1);
    expect(index.retainedFrom).toBe(T0 + 1000);
    expect(index.sum(T0 + 1000, T0 + 3000)).toBe(800n);
    expect(index.min(T0 + 1000, T0 + 3000)).toBe(-200n);
  });

  it('a lower horizon than an earlier one drops nothing', () => {
    const index = indexOf(sample);
    index.pruneBefore(T0 + 2000);
    index.upsert({ id: 'late', timestamp: T0, amount: 1n });
    expect(index.pruneBefore(T0 + 1000)).toBe(0);
    expect(index.retainedFrom).toBe(T0 + 2000);
    expect(index.count(T0, T0 + 3000)).toBe(3);
  });

  it('pruning everything leaves an empty, usable index', () => {
    const index = indexOf(sample);
    expect(index.pruneBefore(T0 + 10_000)).toBe(5);
    expect(index.size).toBe(0);
    expect(index.firstTimestamp).toBeNull();
    index.upsert({ id: 'z', timestamp: T0 + 20_000, amount: 3n });
    expect(index.sum(T0, T0 + 20_000)).toBe(3n);
  });
});

describe('amounts kept as numbers, then as bigints past ±2^52', () => {
  it('a sum that grows past 2^53 by appends stays exact', () => {
    const index = indexOf([
      { id: 'a', timestamp: T0, amount: A },
      { id: 'b', timestamp: T0 + 1, amount: A },
      { id: 'c', timestamp: T0 + 2, amount: A - 2n },
    ]);
    expect(index.sum(T0, T0 + 2)).toBe(3n * A - 2n);
    expect(index.sum(T0, T0 + 2, 'b')).toBe(2n * A - 2n);
    expect(index.sum(T0 + 1, T0 + 2)).toBe(2n * A - 2n);
    expect(index.max(T0, T0 + 2)).toBe(A);
    expect(index.min(T0, T0 + 2, 'a')).toBe(A - 2n);
  });

  it('a sum that grows past 2^53 by an entry inserted before others stays exact', () => {
    const index = indexOf([
      { id: 'a', timestamp: T0, amount: 1n },
      { id: 'c', timestamp: T0 + 2, amount: A },
      { id: 'd', timestamp: T0 + 3, amount: A },
    ]);
    index.upsert({ id: 'b', timestamp: T0 + 1, amount: A });
    expect(index.sum(T0, T0 + 3)).toBe(3n * A + 1n);
    expect(index.sum(T0 + 1, T0 + 3, 'c')).toBe(2n * A);
    expect(index.amountCount(T0, T0 + 3)).toBe(4);
  });

  it('one amount past 2^52 switches at once, and small amounts after it stay exact', () => {
    const big = 10n ** 18n + 7n;
    const index = indexOf([{ id: 'a', timestamp: T0, amount: 5n }]);
    index.upsert({ id: 'b', timestamp: T0 + 1, amount: big });
    index.upsert({ id: 'c', timestamp: T0 + 2, amount: -3n });
    expect(index.sum(T0, T0 + 2)).toBe(big + 2n);
    expect(index.sum(T0, T0 + 2, 'b')).toBe(2n);
    expect(index.min(T0, T0 + 2)).toBe(-3n);
    expect(index.get('b')).toEqual({ id: 'b', timestamp: T0 + 1, amount: big });
  });

  it('a sum that leaves the exact range only without the excluded entry is exact', () => {
    // Prefix sums 0, −A, 0, A, 0, A: all kept as numbers; without w the window sums to 3A (> 2^53, odd).
    const index = indexOf([
      { id: 'x', timestamp: T0, amount: -A },
      { id: 'y', timestamp: T0 + 1, amount: A },
      { id: 'z', timestamp: T0 + 2, amount: A },
      { id: 'w', timestamp: T0 + 3, amount: -A },
      { id: 'v', timestamp: T0 + 4, amount: A },
    ]);
    expect(index.sum(T0 + 1, T0 + 4)).toBe(2n * A);
    expect(index.sum(T0 + 1, T0 + 4, 'w')).toBe(3n * A);
    expect(index.sum(T0, T0 + 4, 'y')).toBe(0n);
  });

  it('a sum that leaves the exact range only without an excluded entry in the middle, in the number form', () => {
    // Prefix sums 0, −A, 0, A, 0, A, 0: every one within ±2^52 (numbers throughout). Without w, the
    // window y..v sums to 3A (odd, past 2^53): the two exact parts around w (2A and A) must not be
    // added as doubles.
    const { index, model } = indexWithModel([
      { id: 'x', timestamp: T0, amount: -A },
      { id: 'y', timestamp: T0 + 1, amount: A },
      { id: 'z', timestamp: T0 + 2, amount: A },
      { id: 'w', timestamp: T0 + 3, amount: -A },
      { id: 'v', timestamp: T0 + 4, amount: A },
      { id: 'u', timestamp: T0 + 5, amount: -A },
    ]);
    expect(index.sum(T0 + 1, T0 + 4, 'w')).toBe(3n * A);
    expect(index.sum(T0 + 1, T0 + 5, 'w')).toBe(2n * A);
    expect(index.sum(T0, T0 + 4, 'w')).toBe(2n * A);
    expect(index.sum(T0 + 1, T0 + 4)).toBe(2n * A);
    checkAll(index, model, T0 + 1, T0 + 4, 'w');
    checkAll(index, model, T0, T0 + 5, 'x');
  });

  it('exactly ±2^52 switches, ±(2^52 − 1) does not change any answer', () => {
    for (const amount of [L, -L, A, -A, L + 1n, -L - 1n]) {
      const { index, model } = indexWithModel([
        { id: 'a', timestamp: T0, amount: 3n },
        { id: 'b', timestamp: T0 + 1, amount },
        { id: 'c', timestamp: T0 + 2, amount: amount > 0n ? 2n : -2n },
      ]);
      checkAll(index, model, T0, T0 + 2, undefined, String(amount));
      checkAll(index, model, T0, T0 + 2, 'b', String(amount));
      expect(index.get('b')).toEqual({ id: 'b', timestamp: T0 + 1, amount });
    }
  });

  it('a prefix sum pushed past 2^52 by replacing an amount in place, by a move, and by a remove', () => {
    const base: WindowEntry[] = [
      { id: 'a', timestamp: T0, amount: A },
      { id: 'b', timestamp: T0 + 1, amount: -A },
      { id: 'c', timestamp: T0 + 2, amount: A },
      { id: 'd', timestamp: T0 + 3, amount: 2n },
    ];
    // In place: b becomes +A, prefix sums 2A, 3A.
    let { index, model } = indexWithModel(base);
    const b = { id: 'b', timestamp: T0 + 1, amount: A };
    index.upsert(b);
    model.set('b', b);
    checkAll(index, model, T0, T0 + 3, undefined);
    checkAll(index, model, T0, T0 + 3, 'd');
    // A move: b goes to the end; the prefix after a and c is 2A.
    ({ index, model } = indexWithModel(base));
    const moved = { id: 'b', timestamp: T0 + 4, amount: -A };
    index.upsert(moved);
    model.set('b', moved);
    checkAll(index, model, T0, T0 + 4, undefined);
    checkAll(index, model, T0, T0 + 4, 'b');
    // A remove of b: the same.
    ({ index, model } = indexWithModel(base));
    expect(index.remove('b')).toBe(true);
    model.delete('b');
    checkAll(index, model, T0, T0 + 3, undefined);
    checkAll(index, model, T0, T0 + 3, 'c');
  });

  it('min/max and lastMin/lastMax across block boundaries, with block summaries computed before the switch', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 300; i++)
      entries.push({ id: `t${String(i).padStart(3, '0')}`, timestamp: T0 + i, amount: i % 5 === 0 ? null : BigInt((i * 7919) % 1000) - 500n });
    const { index, model } = indexWithModel(entries);
    checkAll(index, model, T0 + 3, T0 + 290, undefined);
    // One big amount in the middle: every summary must be recomputed in the bigint form.
    const big = { id: 't150', timestamp: T0 + 150, amount: -(10n ** 19n) - 1n };
    index.upsert(big);
    model.set('t150', big);
    checkAll(index, model, T0 + 3, T0 + 290, undefined);
    checkAll(index, model, T0 + 3, T0 + 290, 't150');
    const big2 = { id: 't200', timestamp: T0 + 200, amount: 10n ** 19n + 1n };
    index.upsert(big2);
    model.set('t200', big2);
    checkAll(index, model, T0 + 70, T0 + 299, 't250');
    // Pruning and compaction in the bigint form.
    pruneBoth(index, model, T0 + 160);
    checkAll(index, model, T0 + 160, T0 + 299, 't200');
    expect(index.entries()).toEqual(sortedModel(model));
  });
});

describe('finding entries by id (a scan while few, a Map past 64)', () => {
  for (const size of [10, 64, 65, 300]) {
    it(`${size} entries: an old entry is replaced, moved, excluded and removed by id`, () => {
      const entries: WindowEntry[] = [];
      for (let i = 0; i < size; i++) entries.push({ id: `t${i}`, timestamp: T0 + i * 10, amount: BigInt(i + 1) });
      const index = indexOf(entries);
      const total = (BigInt(size) * BigInt(size + 1)) / 2n;
      // Excluded: t0 lies at the window's start, far from its end.
      expect(index.sum(T0, T0 + size * 10, 't0')).toBe(total - 1n);
      expect(index.count(T0, T0 + size * 10, 't0')).toBe(size - 1);
      // Replaced in place (same timestamp), then moved to the end.
      index.upsert({ id: 't1', timestamp: T0 + 10, amount: 100n });
      expect(index.sum(T0, T0 + size * 10)).toBe(total - 2n + 100n);
      index.upsert({ id: 't1', timestamp: T0 + size * 10 + 5, amount: 100n });
      expect(index.latest(T0, T0 + size * 10 + 5)).toBe(T0 + size * 10 + 5);
      expect(index.count(T0, T0 + size * 10, 't1')).toBe(size - 1);
      expect(index.count(T0 + size * 10, T0 + size * 10 + 5, 't1')).toBe(0);
      expect(index.get('t1')).toEqual({ id: 't1', timestamp: T0 + size * 10 + 5, amount: 100n });
      // Removed by id; a removed id is new again.
      expect(index.remove('t0')).toBe(true);
      expect(index.remove('t0')).toBe(false);
      expect(index.get('t0')).toBeNull();
      expect(index.size).toBe(size - 1);
      index.upsert({ id: 't0', timestamp: T0, amount: 1n });
      expect(index.size).toBe(size);
      expect(index.sum(T0, T0 + size * 10 + 5)).toBe(total - 2n + 100n);
    });
  }

  it('pruned ids are forgotten in both forms', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 100; i++) entries.push({ id: `t${i}`, timestamp: T0 + i, amount: 1n });
    const index = indexOf(entries);
    index.pruneBefore(T0 + 80);
    expect(index.get('t10')).toBeNull();
    expect(index.count(T0, T0 + 99, 't10')).toBe(20);
    expect(index.count(T0, T0 + 99, 't90')).toBe(19);
    index.upsert({ id: 't10', timestamp: T0 + 200, amount: 2n });
    expect(index.sum(T0, T0 + 200)).toBe(22n);
  });

  it('the 65th id inserted out of order, then lookups of old ids at ties, moves and removes', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 64; i++) entries.push({ id: `i${i}`, timestamp: T0 + Math.floor(i / 4) * 10, amount: BigInt(i) });
    const { index, model } = indexWithModel(entries);
    // The 65th, in the middle and at a tie with i20..i23.
    const late = { id: 'i2', timestamp: T0 + 50, amount: 1000n }; // a held id: replaced and moved, not new
    index.upsert(late);
    model.set('i2', late);
    const newcomer = { id: 'i21x', timestamp: T0 + 50, amount: 7n };
    index.upsert(newcomer);
    model.set('i21x', newcomer);
    expect(index.size).toBe(65);
    for (const id of ['i0', 'i2', 'i21', 'i21x', 'i63', 'i6']) {
      expect(index.get(id)).toEqual(model.get(id));
      checkAll(index, model, T0 + 40, T0 + 60, id);
    }
    // Move i21x to an equal timestamp with another id order: the same timestamp, nothing moves.
    const same = { id: 'i21x', timestamp: T0 + 50, amount: 8n };
    index.upsert(same);
    model.set('i21x', same);
    expect(index.entries()).toEqual(sortedModel(model));
    // Prune back below 64 ids (the Map stays), re-add a pruned id and a removed one.
    pruneBoth(index, model, T0 + 100);
    expect(index.size).toBe(model.size);
    expect(index.get('i0')).toBeNull();
    const again = { id: 'i0', timestamp: T0 + 155, amount: 5n };
    index.upsert(again);
    model.set('i0', again);
    expect(index.remove('i63')).toBe(true);
    model.delete('i63');
    expect(index.remove('i63')).toBe(false);
    const back = { id: 'i63', timestamp: T0 + 100, amount: -5n };
    index.upsert(back);
    model.set('i63', back);
    expect(index.entries()).toEqual(sortedModel(model));
    for (const id of ['i0', 'i63', 'i62', 'i5', 'nope', 'i6']) checkAll(index, model, -Infinity, Infinity, id);
  });

  it('the 65th id added as the move target of nothing: moving a held id does not count twice', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 64; i++) entries.push({ id: `m${i}`, timestamp: T0 + i, amount: 1n });
    const { index, model } = indexWithModel(entries);
    for (let k = 0; k < 5; k++) {
      const moved = { id: `m${k}`, timestamp: T0 + 100 + k, amount: 2n };
      index.upsert(moved);
      model.set(moved.id, moved);
    }
    expect(index.size).toBe(64);
    const next = { id: 'm64', timestamp: T0 + 10.5, amount: 3n };
    index.upsert(next);
    model.set('m64', next);
    for (const id of ['m0', 'm4', 'm5', 'm64', 'm63']) {
      expect(index.get(id)).toEqual(model.get(id));
      checkAll(index, model, T0, T0 + 200, id);
    }
    expect(index.entries()).toEqual(sortedModel(model));
  });

  it('ids that are prefixes of others, at one timestamp', () => {
    const ids = ['b', 'a', 'abc', 'ab', 'b0', 'a0', ''];
    const { index, model } = indexWithModel(ids.map((id, i) => ({ id, timestamp: T0, amount: BigInt(i + 1) })));
    expect(index.entries().map((e) => e.id)).toEqual(['', 'a', 'a0', 'ab', 'abc', 'b', 'b0']);
    for (const id of [...ids, 'abcd', 'aa']) {
      checkAll(index, model, T0, T0, id);
      expect(index.get(id)).toEqual(model.get(id) ?? null);
    }
    expect(index.remove('ab')).toBe(true);
    model.delete('ab');
    for (const id of ['abc', 'ab', 'a']) checkAll(index, model, T0, T0, id);
  });
});

describe('finding entries by id: the id → position memo', () => {
  it('a lookup, a change, the same lookup; two ids alternating', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 10; i++) entries.push({ id: `e${i}`, timestamp: T0 + i * 10, amount: BigInt(i + 1), values: { cp: `v${i % 2}` } });
    const { index, model } = indexWithModel(entries);
    expect(index.sum(T0, T0 + 90, 'e5')).toBe(55n - 6n);
    // e5 moves before e2: the memo must not answer with its old position.
    const moved = { id: 'e5', timestamp: T0 + 15, amount: 100n, values: { cp: 'v1' } };
    index.upsert(moved);
    model.set('e5', moved);
    checkAll(index, model, T0, T0 + 90, 'e5');
    checkAll(index, model, T0, T0 + 90, 'e6');
    checkAll(index, model, T0, T0 + 90, 'e5');
    // An insertion before e9 shifts it: a lookup of e9, the insertion, the same lookup.
    expect(index.count(T0, T0 + 90, 'e9')).toBe(9);
    const ins = { id: 'e8b', timestamp: T0 + 85, amount: 1n };
    index.upsert(ins);
    model.set('e8b', ins);
    checkAll(index, model, T0 + 80, T0 + 90, 'e9');
    // A remove, then a query excluding the removed id, then its re-insertion elsewhere.
    expect(index.max(T0, T0 + 90, 'e0')).toBe(100n);
    index.remove('e0');
    model.delete('e0');
    checkAll(index, model, T0, T0 + 90, 'e0');
    const e0 = { id: 'e0', timestamp: T0 + 90, amount: 1000n };
    index.upsert(e0);
    model.set('e0', e0);
    checkAll(index, model, T0, T0 + 90, 'e0');
    // A prune, then the same exclusions.
    pruneBoth(index, model, T0 + 40);
    checkAll(index, model, T0, T0 + 90, 'e0');
    checkAll(index, model, T0, T0 + 90, 'e5');
  });

  it('a lookup, a prune that drops the entry without compacting, the same lookup', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 10; i++) entries.push({ id: `e${i}`, timestamp: T0 + i, amount: BigInt(i) });
    const { index, model } = indexWithModel(entries);
    expect(index.get('e1')).toEqual(model.get('e1'));
    expect(index.sum(T0, T0 + 9, 'e1')).toBe(44n);
    // 3 of 10 pruned: no compaction, positions unchanged; e1 is no longer held.
    pruneBoth(index, model, T0 + 3);
    expect(index.get('e1')).toBeNull();
    expect(index.remove('e1')).toBe(false);
    checkAll(index, model, -Infinity, Infinity, 'e1');
    const back = { id: 'e1', timestamp: T0 + 20, amount: 100n };
    index.upsert(back);
    model.set('e1', back);
    expect(index.get('e1')).toEqual(back);
    checkAll(index, model, -Infinity, Infinity, 'e1');
  });

  it('excludeId equal to an id at a tie timestamp', () => {
    const { index, model } = indexWithModel([
      { id: 'x', timestamp: T0, amount: 1n },
      { id: 'y', timestamp: T0, amount: 2n },
      { id: 'z', timestamp: T0, amount: null },
    ]);
    for (const id of ['x', 'y', 'z', 'y', 'x']) {
      checkAll(index, model, T0, T0, id);
    }
    const y = { id: 'y', timestamp: T0, amount: 20n };
    index.upsert(y);
    model.set('y', y);
    checkAll(index, model, T0, T0, 'y');
  });
});

describe('entry values created late, and cursors after edits', () => {
  it('entries without values, then with; replacements changing values only; long ranges in both forms', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 120; i++) entries.push({ id: `e${String(i).padStart(3, '0')}`, timestamp: T0 + i, amount: i % 6 === 0 ? null : BigInt(i) });
    const { index, model } = indexWithModel(entries);
    checkAll(index, model, T0 + 5, T0 + 100, 'e050');
    // Values only from now on (vals created late), by append and by in-place replacement.
    for (let i = 120; i < 160; i++) {
      const e = { id: `e${i}`, timestamp: T0 + i, amount: BigInt(i), values: { cp: `v${i % 4}`, country: 'x' } };
      index.upsert(e);
      model.set(e.id, e);
    }
    checkAll(index, model, T0 + 5, T0 + 150, 'e130');
    checkAll(index, model, T0 + 10, T0 + 155, 'e131');
    for (const i of [20, 60, 140]) {
      const id = i < 120 ? `e${String(i).padStart(3, '0')}` : `e${i}`;
      const e = { ...(model.get(id) as WindowEntry), values: { cp: 'v1', country: 'y' } };
      index.upsert(e);
      model.set(id, e);
      checkAll(index, model, T0 + 5, T0 + 150, id);
      checkAll(index, model, T0 + 6, T0 + 152, undefined);
    }
    // The bigint form: the cursors' sums must stay exact.
    const big = { id: 'e100', timestamp: T0 + 100, amount: 10n ** 18n + 3n, values: { cp: 'v1', country: 'x' } };
    index.upsert(big);
    model.set('e100', big);
    checkAll(index, model, T0 + 5, T0 + 150, 'e100');
    checkAll(index, model, T0 + 7, T0 + 151, 'e101');
    const e5 = { id: 'e005', timestamp: T0 + 5, amount: -(10n ** 18n), values: { cp: 'v3' } };
    index.upsert(e5);
    model.set('e005', e5);
    checkAll(index, model, T0 + 5, T0 + 151, undefined);
    expect(index.entries()).toEqual(sortedModel(model));
  });
});

describe('scanned (distinct-count work)', () => {
  /** One user's history: `n` transactions 1 s apart, each with one of 40 counterparties, state CREATED. */
  function history(n: number): WindowIndex {
    const index = createWindowIndex();
    for (let i = 0; i < n; i++) index.upsert({ id: `t${i}`, timestamp: T0 + i * 1000, amount: 100n, values: { counterparty: `c${i % 40}`, state: 'CREATED' } });
    return index;
  }

  it('a create plus an event costs a few entries of cursor work, whatever the history (100,000 entries in the window)', () => {
    const n = 100_000;
    const index = history(n);
    const window = (end: number) => [end - 30 * 86_400_000, end] as const;
    // The first count fills the cursor once (every entry of the window).
    let end = T0 + n * 1000;
    expect(index.distinctCount(...window(end), 'counterparty', 'new', 'c1')).toBe(40);
    expect(index.scanned).toBe(n);
    for (let k = 0; k < 50; k++) {
      const before = index.scanned;
      const id = `new${k}`;
      end += 1000;
      // Create: the count for the new transaction, then its entry appended.
      index.distinctCount(...window(end), 'counterparty', id, `x${k}`);
      index.countIn(...window(end), 'counterparty', ['u'], id);
      index.upsert({ id, timestamp: end, amount: 100n, values: { counterparty: `x${k}`, state: 'CREATED' } });
      // Event: the count again (its own entry excluded), then the entry replaced with its new state.
      index.distinctCount(...window(end), 'counterparty', id, `x${k}`);
      index.upsert({ id, timestamp: end, amount: 150n, values: { counterparty: `x${k}`, state: 'SUCCESSFUL' } });
      // An event on an older transaction inside the window, changing its counterparty.
      const old = `t${n - 1 - k}`;
      index.upsert({ id: old, timestamp: T0 + (n - 1 - k) * 1000, amount: 100n, values: { counterparty: 'c0', state: 'SUCCESSFUL' } });
      expect(index.distinctCount(...window(end), 'counterparty', id, `x${k}`)).toBe(40 + k + 1);
      expect(index.scanned - before).toBeLessThanOrEqual(4);
    }
  });

  it('an out-of-order insert, a move and a removal inside a window keep the cursor (no rescan)', () => {
    const index = history(1000);
    const end = T0 + 999_000;
    index.distinctCount(T0, end, 'counterparty');
    const filled = index.scanned;
    index.upsert({ id: 'late', timestamp: T0 + 500_500, amount: 1n, values: { counterparty: 'late' } });
    index.upsert({ id: 't10', timestamp: T0 + 700_500, amount: 1n, values: { counterparty: 'moved' } });
    index.remove('t20');
    expect(index.distinctCount(T0, end, 'counterparty')).toBe(42);
    expect(index.countIn(T0, end, 'counterparty', ['c20', 'late'])).toBe(25);
    expect(index.scanned).toBe(filled);
  });
});

describe('entries and get', () => {
  it('return fresh objects with exact amounts in both forms', () => {
    const { index } = indexWithModel([
      { id: 'a', timestamp: T0, amount: A, values: { cp: 'x' } },
      { id: 'b', timestamp: T0 + 1, amount: null },
    ]);
    const first = index.entries();
    (first[0] as { amount: bigint | null }).amount = 0n;
    first.pop();
    expect(index.entries()).toEqual([
      { id: 'a', timestamp: T0, amount: A, values: { cp: 'x' } },
      { id: 'b', timestamp: T0 + 1, amount: null },
    ]);
    index.upsert({ id: 'c', timestamp: T0 + 2, amount: 3n * L + 1n });
    expect(index.entries().map((e) => e.amount)).toEqual([A, null, 3n * L + 1n]);
    expect(index.get('a')).toEqual({ id: 'a', timestamp: T0, amount: A, values: { cp: 'x' } });
    expect(index.get('a')).not.toBe(index.get('a'));
    expect(index.get('b')).toEqual({ id: 'b', timestamp: T0 + 1, amount: null });
    expect(index.sum(T0, T0 + 2)).toBe(A + 3n * L + 1n);
  });
});

describe('upsert with a non-finite timestamp', () => {
  for (const form of ['number', 'bigint'] as const) {
    it(`throw VALIDATION_FAILED and change nothing (${form} form, new id, held id, > 64 ids)`, () => {
      const entries: WindowEntry[] = [];
      for (let i = 0; i < 70; i++) entries.push({ id: `e${i}`, timestamp: T0 + i, amount: form === 'bigint' && i === 3 ? L : BigInt(i) });
      const { index, model } = indexWithModel(entries);
      for (const timestamp of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
        for (const id of ['e5', 'e69', 'new']) {
          for (const amount of [null, 1n, 10n ** 20n]) {
            let thrown: unknown;
            try {
              index.upsert({ id, timestamp, amount, values: { cp: 'x' } });
            } catch (error) {
              thrown = error;
            }
            expect(isTxmonError(thrown)).toBe(true);
            if (!isTxmonError(thrown)) continue;
            expect(thrown.code).toBe('VALIDATION_FAILED');
            expect(thrown.details.map((d) => d.path)).toEqual(['/timestamp']);
          }
        }
      }
      expect(index.entries()).toEqual(sortedModel(model));
      checkAll(index, model, T0, T0 + 69, 'e5');
      // The number form stays exact for sums past 2^53 afterwards: a failed big upsert did not switch silently wrong.
      const big = { id: 'z', timestamp: T0 + 100, amount: A };
      const big2 = { id: 'zz', timestamp: T0 + 101, amount: A };
      index.upsert(big);
      index.upsert(big2);
      model.set('z', big);
      model.set('zz', big2);
      checkAll(index, model, T0, T0 + 101, 'e0');
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Model-based property: the index against computeAggregate over a plain Map of entries.

type Bound = { kind: 'fraction'; value: number } | { kind: 'entry'; pick: number };

type Op =
  | { kind: 'upsert'; id: string; timestamp: number; amount: bigint | null; values: Record<string, string> | undefined }
  | { kind: 'append'; count: number; step: number; modulo: number; nullEvery: number }
  | { kind: 'remove'; pick: number }
  | { kind: 'prune'; at: Bound }
  | { kind: 'query'; start: Bound; end: Bound; exclude: number | null }
  | { kind: 'slide'; width: number; steps: number; exclude: number | null }
  | { kind: 'burst'; ranges: [Bound, Bound, number | null][] };

const valueArb = fc.constantFrom('', 'a', 'b', 'c', 'd', 'e', 'f');
const boundArb: fc.Arbitrary<Bound> = fc.oneof(
  fc.record({ kind: fc.constant('fraction' as const), value: fc.double({ min: -0.1, max: 1.1, noNaN: true }) }),
  fc.record({ kind: fc.constant('entry' as const), pick: fc.nat() }),
);
// Amounts: any size (the index switches to bigints at ±2^52), or only small ones (it stays on numbers).
const WIDE_AMOUNT = fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n });
const SMALL_AMOUNT = fc.bigInt({ min: -(10n ** 9n), max: 10n ** 9n });
const opArbWith = (amountArb: fc.Arbitrary<bigint>): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant('upsert' as const),
        id: fc.integer({ min: 0, max: 30 }).map((i) => `id${i}`),
        timestamp: fc.oneof(
          fc.integer({ min: 0, max: 300 }).map((x) => T0 + x * 100),
          fc.double({ min: T0, max: T0 + 30_000, noNaN: true }),
        ),
        amount: fc.option(amountArb, { nil: null }),
        values: fc.option(fc.record({ cp: valueArb, country: valueArb }, { requiredKeys: [] }), { nil: undefined }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        count: fc.integer({ min: 1, max: 200 }),
        step: fc.constantFrom(0, 1, 50, 100),
        modulo: fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 100, max: 400 })),
        nullEvery: fc.integer({ min: 2, max: 9 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), at: boundArb }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('query' as const),
        start: boundArb,
        end: boundArb,
        exclude: fc.option(fc.nat(), { nil: null }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('slide' as const),
        width: fc.double({ min: 0, max: 1, noNaN: true }),
        steps: fc.integer({ min: 2, max: 12 }),
        exclude: fc.option(fc.nat(), { nil: null }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('burst' as const),
        ranges: fc.array(fc.tuple(boundArb, boundArb, fc.option(fc.nat(), { nil: null })), { minLength: 2, maxLength: 8 }),
      }),
    },
  );

function toSeries(entries: Iterable<WindowEntry>): SeriesEntry[] {
  return [...entries].map((e) => ({ ...e, series: 's', key: 'k' }));
}

function sortedModel(model: Map<string, WindowEntry>): WindowEntry[] {
  return [...model.values()].sort((a, b) => (a.timestamp !== b.timestamp ? a.timestamp - b.timestamp : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function runOps(ops: readonly Op[]): void {
  const index = createWindowIndex();
  const model = new Map<string, WindowEntry>();
  let retainedFrom = -Infinity;
  let appended = 0;

  const span = (): [number, number] => {
    const all = sortedModel(model);
    const first = all[0]?.timestamp ?? T0;
    const last = all[all.length - 1]?.timestamp ?? T0 + 1000;
    return [first, last];
  };
  const resolve = (bound: Bound): number => {
    const all = sortedModel(model);
    if (bound.kind === 'entry' && all.length > 0) return (all[bound.pick % all.length] as WindowEntry).timestamp;
    const [first, last] = span();
    const fraction = bound.kind === 'fraction' ? bound.value : 0.5;
    return first + (last - first) * fraction;
  };
  const pickId = (pick: number | null): string | undefined => {
    if (pick === null) return undefined;
    const all = sortedModel(model);
    // Every fifth pick names an id that is not held.
    if (all.length === 0 || pick % 5 === 4) return `missing${pick}`;
    return (all[pick % all.length] as WindowEntry).id;
  };
  const check = (start: number, end: number, excludeId: string | undefined): void => {
    const reference = toSeries(model.values());
    for (const fn of FUNCTIONS) {
      for (const field of fn === 'distinct' || fn === 'sumIn' ? ['cp', 'country'] : ['cp']) {
        for (const last of LAST_FUNCTIONS.has(fn) ? LAST_VARIANTS : [LAST]) {
          const q = referenceQuery(fn, start, end, field, excludeId, last);
          expect(queryIndex(index, q), `${fn}(${field}) [${start}, ${end}] excl ${excludeId} ${last.limit}`).toEqual(computeAggregate(reference, q));
        }
      }
    }
  };

  for (const op of ops) {
    switch (op.kind) {
      case 'upsert': {
        const entry: WindowEntry =
          op.values === undefined
            ? { id: op.id, timestamp: op.timestamp, amount: op.amount }
            : { id: op.id, timestamp: op.timestamp, amount: op.amount, values: op.values };
        index.upsert(entry);
        model.set(op.id, entry);
        break;
      }
      case 'append': {
        const [, last] = span();
        for (let j = 0; j < op.count; j++) {
          const id = `n${appended++}`;
          const entry: WindowEntry = {
            id,
            timestamp: last + (j + 1) * op.step,
            amount: j % op.nullEvery === 0 ? null : BigInt(((j * 7919) % 2000) - 1000),
            values: { cp: `v${j % op.modulo}`, country: j % 3 === 0 ? '' : `c${j % 4}` },
          };
          index.upsert(entry);
          model.set(id, entry);
        }
        break;
      }
      case 'remove': {
        const id = pickId(op.pick) ?? 'none';
        expect(index.remove(id)).toBe(model.delete(id));
        break;
      }
      case 'prune': {
        const horizon = resolve(op.at);
        let dropped = 0;
        if (horizon > retainedFrom) {
          retainedFrom = horizon;
          for (const [id, entry] of model) {
            if (entry.timestamp < horizon) {
              model.delete(id);
              dropped++;
            }
          }
        }
        expect(index.pruneBefore(horizon)).toBe(dropped);
        break;
      }
      case 'query':
        check(resolve(op.start), resolve(op.end), pickId(op.exclude));
        break;
      case 'slide': {
        const [first, last] = span();
        const width = (last - first) * op.width;
        const stride = (last - first) / op.steps;
        for (let s = 0; s <= op.steps; s++) check(first + s * stride, first + s * stride + width, pickId(op.exclude));
        break;
      }
      case 'burst':
        for (const [start, end, exclude] of op.ranges) check(resolve(start), resolve(end), pickId(exclude));
        break;
    }
    expect(index.size).toBe(model.size);
  }
  expect(index.entries()).toEqual(sortedModel(model));
}

// ---------------------------------------------------------------------------------------------
// Model-based property biased toward the edges of the two forms: amounts near ±2^52, ids past 64,
// ties, prefixes of ids, fractions of a tick, non-finite timestamps.

type EdgeOp =
  | { kind: 'upsert'; id: string; tick: number; amount: bigint | null; values: Record<string, string> | undefined }
  | { kind: 'fill'; count: number; from: number; step: number; mode: number; out: boolean }
  | { kind: 'move'; pick: number; tick: number }
  | { kind: 'amend'; pick: number; amount: bigint | null; values: Record<string, string> | undefined | null }
  | { kind: 'remove'; id: string | number }
  | { kind: 'prune'; tick: number }
  | { kind: 'query'; start: number; end: number; exclude: number }
  | { kind: 'get'; id: string | number }
  | { kind: 'bad'; id: string | number; timestamp: number };

/** Ids that are prefixes of one another, and a larger pool (> 64) of ids reused across operations. */
const SMALL_IDS = ['a', 'ab', 'abc', 'b', 'b0', 'b00', 'c', 'A'];
const edgeIdArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...SMALL_IDS) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 90 }).map((i) => `p${i}`) },
);
/** Ticks of 10 ms: many ties; sometimes a fraction in between. */
const tickArb = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 40 }) }, { weight: 1, arbitrary: fc.double({ min: -1, max: 41, noNaN: true }) });
const tsOf = (tick: number): number => T0 + tick * 10;

/** Amounts within ±(2^52 − 1): the number form, leaving it only through a prefix sum. */
const NEAR_IN = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(A, -A, A - 2n, -(A - 2n), L / 2n + 1n, -(L / 2n + 1n), 1n, -1n, 0n) },
  { weight: 2, arbitrary: fc.bigInt({ min: -A, max: A }) },
  { weight: 1, arbitrary: fc.bigInt({ min: -1000n, max: 1000n }) },
);
/** Any size: also exactly ±2^52, just past it, past 2^53 and far beyond. */
const WIDE = fc.oneof(
  { weight: 4, arbitrary: NEAR_IN },
  { weight: 2, arbitrary: fc.constantFrom(L, -L, L + 1n, -L - 1n, 2n * L + 1n, -(2n * L + 1n), 10n ** 20n + 7n) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }) },
);
const SMALL = fc.bigInt({ min: -1000n, max: 1000n });

const edgeValueArb = fc.constantFrom('', 'x', 'y', 'v1', 'v3', 'z');
const edgeValuesArb = fc.option(fc.record({ cp: edgeValueArb, country: edgeValueArb }, { requiredKeys: [] }), { nil: undefined, freq: 3 });

function edgeOpArb(amountArb: fc.Arbitrary<bigint>): fc.Arbitrary<EdgeOp> {
  const amount = fc.option(amountArb, { nil: null, freq: 6 });
  const idOrPick = fc.oneof(edgeIdArb, fc.nat());
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('upsert' as const), id: edgeIdArb, tick: tickArb, amount, values: edgeValuesArb }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('fill' as const),
        count: fc.oneof(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 55, max: 140 })),
        from: fc.integer({ min: -5, max: 45 }),
        step: fc.constantFrom(0, 0.25, 1),
        mode: fc.nat(),
        out: fc.boolean(),
      }),
    },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), pick: fc.nat(), tick: tickArb }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('amend' as const),
        pick: fc.nat(),
        amount,
        values: fc.option(edgeValuesArb, { nil: null }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: idOrPick }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('prune' as const), tick: fc.double({ min: -2, max: 45, noNaN: true }) }) },
    {
      weight: 5,
      arbitrary: fc.record({ kind: fc.constant('query' as const), start: fc.nat(), end: fc.nat(), exclude: fc.nat() }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('get' as const), id: idOrPick }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('bad' as const),
        id: idOrPick,
        timestamp: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
      }),
    },
  );
}

/** The amount of the j-th entry of a `fill` in one of its modes (near the limit, alternating, small, none). */
function fillAmount(mode: number, j: number, small: boolean): bigint | null {
  switch (small ? 2 + (mode % 2) * 2 : mode % 5) {
    case 0:
      return j % 2 === 0 ? A : -A;
    case 1:
      return j % 3 === 2 ? null : j % 2 === 0 ? A - 2n : A;
    case 2:
      return BigInt(((j * 7919) % 2001) - 1000);
    case 3:
      return j % 4 === 0 ? null : -A;
    default:
      return null;
  }
}

let fillCounter = 0;

function runEdgeOps(ops: readonly EdgeOp[], small = false): void {
  const index = createWindowIndex();
  const model = new Map<string, WindowEntry>();
  let prunedCount = 0;
  let retainedFrom = -Infinity;

  const held = (pick: number): WindowEntry | undefined => {
    const all = sortedModel(model);
    return all.length === 0 ? undefined : all[pick % all.length];
  };
  const idOf = (id: string | number): string => (typeof id === 'string' ? id : (held(id)?.id ?? 'none'));
  const put = (entry: WindowEntry): void => {
    index.upsert(entry);
    model.set(entry.id, entry);
  };
  /** A query bound: an entry's timestamp, a tick, or ±Infinity. */
  const bound = (pick: number): number => {
    const all = sortedModel(model);
    switch (pick % 4) {
      case 0:
      case 1:
        return all.length === 0 ? T0 : (all[(pick >> 2) % all.length] as WindowEntry).timestamp;
      case 2:
        return tsOf(((pick >> 2) % 48) - 3);
      default:
        return pick % 8 === 3 ? -Infinity : Infinity;
    }
  };
  /** An excluded id: none, a held one, one held at the same timestamp as another, one never held. */
  const excludeOf = (pick: number): string | undefined => {
    switch (pick % 5) {
      case 0:
        return undefined;
      case 1:
      case 2:
        return held(pick >> 3)?.id;
      case 3: {
        const entry = held(pick >> 3);
        if (entry === undefined) return 'nobody';
        const tie = sortedModel(model).filter((e) => e.timestamp === entry.timestamp);
        return (tie[(pick >> 6) % tie.length] as WindowEntry).id;
      }
      default:
        return (pick >> 3) % 2 === 0 ? 'nobody' : `p${(pick >> 4) % 91}`;
    }
  };

  for (const op of ops) {
    switch (op.kind) {
      case 'upsert':
        put(
          op.values === undefined
            ? { id: op.id, timestamp: tsOf(op.tick), amount: op.amount }
            : { id: op.id, timestamp: tsOf(op.tick), amount: op.amount, values: op.values },
        );
        break;
      case 'fill': {
        // Many new ids (the Set → Map switch at 65), appended or inserted out of order.
        const base = fillCounter;
        fillCounter += op.count;
        for (let j = 0; j < op.count; j++) {
          const k = op.out ? op.count - 1 - j : j;
          const entry: WindowEntry = {
            id: `f${base + k}`,
            timestamp: tsOf(op.from + k * op.step),
            amount: fillAmount(op.mode, k, small),
            ...(op.mode % 3 === 0 ? {} : { values: { cp: `v${k % 4}`, country: k % 3 === 0 ? '' : 'x' } }),
          };
          put(entry);
        }
        break;
      }
      case 'move': {
        const entry = held(op.pick);
        if (entry !== undefined) put({ ...entry, timestamp: tsOf(op.tick) });
        break;
      }
      case 'amend': {
        // Same id and timestamp: only the amount and/or the values change (or nothing).
        const entry = held(op.pick);
        if (entry === undefined) break;
        const { values: oldValues, ...rest } = entry;
        const values = op.values === null ? oldValues : op.values;
        put(values === undefined ? { ...rest, amount: op.amount } : { ...rest, amount: op.amount, values });
        break;
      }
      case 'remove': {
        const id = idOf(op.id);
        expect(index.remove(id)).toBe(model.delete(id));
        break;
      }
      case 'prune': {
        const horizon = tsOf(op.tick);
        let dropped = 0;
        if (horizon > retainedFrom) {
          retainedFrom = horizon;
          for (const [id, e] of model) {
            if (e.timestamp < horizon) {
              model.delete(id);
              dropped += 1;
            }
          }
        }
        prunedCount += dropped;
        expect(index.pruneBefore(horizon)).toBe(dropped);
        break;
      }
      case 'query': {
        const start = bound(op.start);
        const end = bound(op.end);
        const excludeId = excludeOf(op.exclude);
        checkAll(index, model, start, end, excludeId);
        // A second, overlapping query with the same excluded id (the memo) and the whole history.
        checkAll(index, model, -Infinity, Infinity, excludeId);
        break;
      }
      case 'get': {
        const id = idOf(op.id);
        const got = index.get(id);
        expect(got).toEqual(model.get(id) ?? null);
        if (got !== null) {
          // A fresh object: changing it changes nothing held.
          (got as { amount: bigint | null }).amount = 123n;
          expect(index.get(id)).toEqual(model.get(id));
        }
        break;
      }
      case 'bad': {
        const id = idOf(op.id);
        const before = index.entries();
        let thrown: unknown;
        try {
          index.upsert({ id, timestamp: op.timestamp, amount: 10n ** 19n, values: { cp: 'x' } });
        } catch (error) {
          thrown = error;
        }
        expect(isTxmonError(thrown) && thrown.code === 'VALIDATION_FAILED').toBe(true);
        expect(index.entries()).toEqual(before);
        break;
      }
    }
    checkShape(index, model, prunedCount, retainedFrom);
  }
  expect(index.entries()).toEqual(sortedModel(model));
  checkAll(index, model, -Infinity, Infinity, undefined, 'final');
}

describe('properties', () => {
  test.prop([fc.array(opArbWith(WIDE_AMOUNT), { maxLength: 60, size: 'large' })], { numRuns: 60 })(
    'every query equals computeAggregate over the current entries, after any upserts, removes and prunes',
    (ops) => {
      runOps(ops);
    },
  );

  test.prop([fc.array(opArbWith(SMALL_AMOUNT), { maxLength: 60, size: 'large' })], { numRuns: 40 })(
    'the same with small amounts only: the index keeps them as numbers all along (moves, removes, prunes, more than 64 ids)',
    (ops) => {
      runOps(ops);
    },
  );

  test.prop(
    [
      fc.array(
        fc.record({
          gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 3000 })),
          late: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 5000 }) }),
          amount: fc.option(fc.bigInt({ min: -1000n, max: 1000n }), { nil: null }),
          cp: fc.oneof(valueArb, fc.integer({ min: 0, max: 500 }).map(String)),
          prune: fc.boolean(),
        }),
        { minLength: 1, maxLength: 300, size: 'max' },
      ),
      fc.integer({ min: 1000, max: 60_000 }),
    ],
    { numRuns: 40 },
  )('the engine pattern — append, query the window ending at the new entry excluding it, prune — matches a scan', (steps, window) => {
    const index = createWindowIndex();
    const model = new Map<string, WindowEntry>();
    let now = T0;
    let retainedFrom = -Infinity;
    steps.forEach((step, i) => {
      now += step.gap;
      const entry: WindowEntry = { id: `t${i}`, timestamp: now - step.late, amount: step.amount, values: { cp: step.cp } };
      index.upsert(entry);
      model.set(entry.id, entry);
      const reference = toSeries(model.values());
      for (const excludeId of [entry.id, undefined]) {
        for (const fn of FUNCTIONS) {
          const start = LAST_FUNCTIONS.has(fn) ? Number.NEGATIVE_INFINITY : entry.timestamp - window;
          expect(queryIndex(index, referenceQuery(fn, start, entry.timestamp, 'cp', excludeId)), `${fn} at step ${i}`).toEqual(
            computeAggregate(reference, referenceQuery(fn, start, entry.timestamp, 'cp', excludeId)),
          );
        }
      }
      if (step.prune) {
        const horizon = now - 3 * window;
        if (horizon > retainedFrom) {
          retainedFrom = horizon;
          for (const [id, e] of model) if (e.timestamp < horizon) model.delete(id);
        }
        index.pruneBefore(horizon);
      }
    });
    expect(index.entries()).toEqual(sortedModel(model));
  });

  test.prop([
    fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 70, maxLength: 300, size: 'max' }),
    fc.array(
      fc.record({
        width: fc.integer({ min: 0, max: 200 }),
        step: fc.integer({ min: 0, max: 40 }),
        ex: fc.nat(),
        set: fc.subarray(['v1', 'v2', 'v5', 'v7', 'none']),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  ])('countIn with excludeId over sliding long windows matches a scan (cursors reused)', (timestamps, queries) => {
    const entries: WindowEntry[] = timestamps.map((t, i) => ({ id: `e${i}`, timestamp: T0 + t, amount: null, values: { cp: `v${(i * 31) % 23}` } }));
    const index = indexOf(entries);
    const reference = toSeries(entries);
    let start = T0;
    for (const q of queries) {
      start += q.step;
      const end = start + q.width;
      const excludeId = `e${q.ex % entries.length}`;
      const expected = computeAggregate(reference, { series: 's', key: 'k', start, end, fn: 'countIn', field: 'cp', values: q.set, excludeId });
      expect(index.countIn(start, end, 'cp', q.set, excludeId)).toBe(expected);
    }
  });

  test.prop([
    fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.option(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), { nil: null })), {
      minLength: 70,
      maxLength: 300,
      size: 'max',
    }),
    fc.array(
      fc.record({
        fn: fc.constantFrom('sumIn' as const, 'countIn' as const, 'distinct' as const),
        width: fc.integer({ min: 0, max: 200 }),
        step: fc.integer({ min: -20, max: 40 }),
        ex: fc.nat(),
        set: fc.subarray(['v1', 'v2', 'v5', 'v7', 'none']),
        edit: fc.option(fc.record({ pick: fc.nat(), amount: fc.option(fc.bigInt({ min: -1000n, max: 1000n }), { nil: null }) }), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 16 },
    ),
  ])(
    'sumIn, countIn and distinct on one field over sliding long windows match a scan (cursors with and without sums shared, kept in step by edits)',
    (rows, queries) => {
      const model = new Map<string, WindowEntry>();
      for (const [i, [t, amount]] of rows.entries()) model.set(`e${i}`, { id: `e${i}`, timestamp: T0 + t, amount, values: { cp: `v${(i * 31) % 23}` } });
      const index = indexOf([...model.values()]);
      let start = T0;
      for (const q of queries) {
        if (q.edit !== undefined) {
          // Replacing an amount in place (an event of a past transaction) must reach cursors that cover it.
          const id = `e${q.edit.pick % rows.length}`;
          const entry = { ...(model.get(id) as WindowEntry), amount: q.edit.amount };
          model.set(id, entry);
          index.upsert(entry);
        }
        start += q.step;
        const end = start + q.width;
        const excludeId = `e${q.ex % rows.length}`;
        const reference = toSeries(model.values());
        const expected = computeAggregate(reference, { series: 's', key: 'k', start, end, fn: q.fn, field: 'cp', values: q.set, excludeId });
        const actual =
          q.fn === 'sumIn'
            ? index.sumIn(start, end, 'cp', q.set, excludeId)
            : q.fn === 'countIn'
              ? index.countIn(start, end, 'cp', q.set, excludeId)
              : index.distinctCount(start, end, 'cp', excludeId);
        expect(actual, `${q.fn} [${start}, ${end}]`).toEqual(expected);
      }
    },
  );

  test.prop([
    fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.option(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), { nil: null })), {
      minLength: 70,
      maxLength: 300,
      size: 'max',
    }),
    fc.array(
      fc.record({
        fn: fc.constantFrom('sumIn' as const, 'countIn' as const, 'distinct' as const),
        width: fc.integer({ min: 0, max: 200 }),
        step: fc.integer({ min: -20, max: 40 }),
        ex: fc.nat(),
        set: fc.subarray(['v1', 'v2', 'v5', 'v7', 'none']),
        edit: fc.option(
          fc.record({
            kind: fc.constantFrom('values' as const, 'amount' as const, 'move' as const, 'insert' as const, 'remove' as const),
            pick: fc.nat(),
            t: fc.integer({ min: 0, max: 400 }),
            cp: fc.constantFrom('v1', 'v2', 'v5', 'new', ''),
            amount: fc.option(fc.bigInt({ min: -1000n, max: 1000n }), { nil: null }),
          }),
          { nil: undefined },
        ),
      }),
      { minLength: 1, maxLength: 16 },
    ),
  ])('cursors kept in step with every edit (values, amount, move, out-of-order insert, removal) answer as a scan', (rows, queries) => {
    const model = new Map<string, WindowEntry>();
    for (const [i, [t, amount]] of rows.entries()) model.set(`e${i}`, { id: `e${i}`, timestamp: T0 + t, amount, values: { cp: `v${(i * 31) % 23}` } });
    const index = indexOf([...model.values()]);
    let start = T0;
    let added = 0;
    for (const q of queries) {
      const e = q.edit;
      if (e !== undefined) {
        const ids = [...model.keys()];
        const id = ids[e.pick % ids.length] as string;
        const held = model.get(id) as WindowEntry;
        if (e.kind === 'remove') {
          model.delete(id);
          index.remove(id);
        } else {
          const entry =
            e.kind === 'insert'
              ? { id: `n${added++}`, timestamp: T0 + e.t, amount: e.amount, values: { cp: e.cp } }
              : e.kind === 'values'
                ? { ...held, values: { cp: e.cp } }
                : e.kind === 'amount'
                  ? { ...held, amount: e.amount }
                  : { ...held, timestamp: T0 + e.t, values: { cp: e.cp } };
          model.set(entry.id, entry);
          index.upsert(entry);
        }
      }
      start += q.step;
      const end = start + q.width;
      const excludeId = `e${q.ex % rows.length}`;
      const reference = toSeries(model.values());
      const expected = computeAggregate(reference, { series: 's', key: 'k', start, end, fn: q.fn, field: 'cp', values: q.set, excludeId });
      const actual =
        q.fn === 'sumIn'
          ? index.sumIn(start, end, 'cp', q.set, excludeId)
          : q.fn === 'countIn'
            ? index.countIn(start, end, 'cp', q.set, excludeId)
            : index.distinctCount(start, end, 'cp', excludeId);
      expect(actual, `${q.fn} [${start}, ${end}]`).toEqual(expected);
    }
  });

  test.prop([
    fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 70, maxLength: 300, size: 'max' }),
    fc.array(
      fc.record({
        width: fc.integer({ min: 0, max: 200 }),
        step: fc.integer({ min: 0, max: 40 }),
        ex: fc.nat(),
        inc: fc.option(fc.constantFrom('v1', 'v5', 'new', ''), { nil: undefined }),
      }),
      { minLength: 1, maxLength: 12 },
    ),
  ])('distinct with excludeId and includeValue over sliding long windows matches a scan (cursors reused)', (timestamps, queries) => {
    const entries: WindowEntry[] = timestamps.map((t, i) => ({ id: `e${i}`, timestamp: T0 + t, amount: null, values: { cp: `v${(i * 31) % 23}` } }));
    const index = indexOf(entries);
    const reference = toSeries(entries);
    let start = T0;
    for (const q of queries) {
      start += q.step;
      const end = start + q.width;
      const excludeId = `e${q.ex % entries.length}`;
      const expected = computeAggregate(reference, {
        series: 's',
        key: 'k',
        start,
        end,
        fn: 'distinct',
        field: 'cp',
        values: COUNT_IN_VALUES,
        excludeId,
        ...(q.inc === undefined ? {} : { includeValue: q.inc }),
      });
      expect(index.distinctCount(start, end, 'cp', excludeId, q.inc)).toBe(expected);
    }
  });

  test.prop([fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 70, maxLength: 400, size: 'max' }), fc.nat(), fc.nat()])(
    'min, max and distinct over long histories match a scan (block summaries and cursors engaged)',
    (timestamps, a, b) => {
      const entries: WindowEntry[] = timestamps.map((t, i) => ({
        id: `e${i}`,
        timestamp: T0 + t,
        amount: i % 7 === 0 ? null : BigInt((i * 104_729) % 10_007) - 5000n,
        values: { cp: `v${(i * 31) % 23}` },
      }));
      const index = indexOf(entries);
      const reference = toSeries(entries);
      const start = T0 + (a % 401);
      const end = T0 + (b % 401);
      for (const fn of FUNCTIONS) {
        for (const last of LAST_FUNCTIONS.has(fn) ? LAST_VARIANTS : [LAST]) {
          expect(queryIndex(index, referenceQuery(fn, start, end, 'cp', undefined, last))).toEqual(
            computeAggregate(reference, referenceQuery(fn, start, end, 'cp', undefined, last)),
          );
        }
      }
    },
  );

  test.prop([fc.array(edgeOpArb(WIDE), { maxLength: 40, size: 'max' })], { numRuns: 100 })(
    'amounts of any size near ±2^52 (both forms, the switch at any moment)',
    (ops) => runEdgeOps(ops),
  );

  test.prop([fc.array(edgeOpArb(NEAR_IN), { maxLength: 40, size: 'max' })], { numRuns: 100 })(
    'amounts within ±(2^52 − 1) only: the switch happens through prefix sums (appends, inserts, amends, moves, removes, after prunes)',
    (ops) => runEdgeOps(ops),
  );

  test.prop([fc.array(edgeOpArb(SMALL), { maxLength: 40, size: 'max' })], { numRuns: 50 })('small amounts only: numbers throughout, ids past 64', (ops) =>
    runEdgeOps(ops, true),
  );

  // The engine pattern with amounts of ±(2^52 − 1): append (sometimes late), query the window ending
  // at the new entry with and without it, prune (often half the arrays: compaction) — the number
  // form must hold every prefix sum within ±2^52 in whatever frame it keeps them, or switch.
  test.prop(
    [
      fc.array(
        fc.record({
          // 'up'/'down': +A/−A, or the other sign when needed to keep the sum of every amount ever
          // added within ±A (the index stays on numbers for long); otherwise that amount as is.
          amount: fc.oneof(
            { weight: 8, arbitrary: fc.constantFrom('up' as const, 'down' as const) },
            { weight: 2, arbitrary: fc.constantFrom(A, -A) },
            { weight: 2, arbitrary: fc.constant(null) },
            { weight: 1, arbitrary: fc.constantFrom(A - 2n, -(A - 2n), 1n, -1n, 0n) },
          ),
          gap: fc.constantFrom(0, 1, 2),
          late: fc.oneof({ weight: 6, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 6 }) }),
          back: fc.nat(),
          prune: fc.option(fc.integer({ min: 0, max: 8 }), { nil: null, freq: 2 }),
        }),
        { minLength: 1, maxLength: 60, size: 'max' },
      ),
    ],
    { numRuns: 400 },
  )('append, query, prune with amounts near 2^52: exact through compactions', (steps) => {
    const index = createWindowIndex();
    const model = new Map<string, WindowEntry>();
    let now = T0;
    let retainedFrom = -Infinity;
    let everAdded = 0n;
    steps.forEach((step, i) => {
      now += step.gap;
      const amount = step.amount === 'up' ? (everAdded > 0n ? -A : A) : step.amount === 'down' ? (everAdded < 0n ? A : -A) : step.amount;
      everAdded += amount ?? 0n;
      const entry: WindowEntry = { id: `t${i}`, timestamp: now - step.late, amount };
      index.upsert(entry);
      model.set(entry.id, entry);
      // The sum of every window [an entry's timestamp, now], with and without the new entry and
      // without some other entry (a sum in two parts around it).
      const all = sortedModel(model);
      const other = all[step.back % all.length] as WindowEntry;
      let total = 0n;
      for (let k = all.length - 1; k >= 0; k--) {
        const e = all[k] as WindowEntry;
        total += e.amount ?? 0n;
        if (k > 0 && (all[k - 1] as WindowEntry).timestamp === e.timestamp) continue;
        expect(index.sum(e.timestamp, now), `sum from ${e.timestamp} at step ${i}`).toBe(total);
        for (const x of [entry, other]) {
          const without = e.timestamp <= x.timestamp ? total - (x.amount ?? 0n) : total;
          expect(index.sum(e.timestamp, now, x.id), `sum from ${e.timestamp} excluding ${x.id} at step ${i}`).toBe(without);
        }
      }
      if (i % 10 === 9) {
        const start = (all[step.back % all.length] as WindowEntry).timestamp;
        checkAll(index, model, start, now, entry.id, `step ${i}`);
      }
      if (step.prune !== null) {
        const horizon = now - step.prune;
        if (horizon > retainedFrom) {
          retainedFrom = horizon;
          for (const [id, e] of model) if (e.timestamp < horizon) model.delete(id);
        }
        index.pruneBefore(horizon);
      }
    });
    expect(index.entries()).toEqual(sortedModel(model));
    checkAll(index, model, -Infinity, Infinity, undefined, 'final');
  });
});

describe('edge cases', () => {
  describe('compaction keeps the number-form prefix sums exact', () => {
    // Compaction must leave the number-form prefix sums as they are (only their differences are
    // read). Prefix sums before the prune: 0, A, A, 0, −A (all within ±2^52). Pruning e0 and e1 (half
    // the arrays) compacts them; rebased on A they would read 0, −A, −2A, and −2A lies outside ±2^52
    // while the index stays on numbers: later prefix sums would be checked in the rebased frame only
    // (−A, 0, A all pass), and a window over e4..e6 would be the difference A − (−2A) = 3A, odd and
    // past 2^53, which a double cannot hold.
    const history: WindowEntry[] = [
      { id: 'e0', timestamp: T0, amount: A },
      { id: 'e1', timestamp: T0 + 1, amount: null },
      { id: 'e2', timestamp: T0 + 2, amount: -A },
      { id: 'e3', timestamp: T0 + 3, amount: -A },
    ];

    it('a sum over appends after a compaction is exact (3A, not 3A − 1)', () => {
      const { index, model } = indexWithModel(history);
      expect(index.pruneBefore(T0 + 2)).toBe(2);
      for (const [id, e] of model) if (e.timestamp < T0 + 2) model.delete(id);
      for (const id of ['e4', 'e5', 'e6']) {
        const entry = { id, timestamp: T0 + Number(id.slice(1)), amount: A };
        index.upsert(entry);
        model.set(id, entry);
      }
      expect(index.sum(T0 + 4, T0 + 6)).toBe(3n * A);
      checkAll(index, model, T0 + 4, T0 + 6, undefined);
      checkAll(index, model, T0 + 3, T0 + 6, 'e3');
    });

    it('the same with excludeId: the parts of a sum around the excluded entry are exact', () => {
      const { index, model } = indexWithModel(history);
      pruneBoth(index, model, T0 + 2);
      for (const id of ['e4', 'e5', 'e6', 'e7']) {
        const entry = { id, timestamp: T0 + Number(id.slice(1)), amount: id === 'e7' ? -2n : A };
        index.upsert(entry);
        model.set(id, entry);
      }
      // Without e7 (−2): 3A, as above; e7 at the end is the excluded current transaction.
      expect(index.sum(T0 + 4, T0 + 7, 'e7')).toBe(3n * A);
      expect(index.sum(T0 + 4, T0 + 7)).toBe(3n * A - 2n);
    });

    it('the same after an out-of-order insert (prefixes recomputed after the compaction)', () => {
      const { index, model } = indexWithModel([...history, { id: 'e0b', timestamp: T0 + 0.5, amount: null }, { id: 'e9', timestamp: T0 + 9, amount: 0n }]);
      pruneBoth(index, model, T0 + 2);
      // Half pruned (e0, e0b, e1): rebased prefixes 0, −A, −2A, −2A; inserting e6, e5, e4 (A each)
      // before e9 keeps every recomputed one within ±2^52 (the last: A), yet e4..e9 sums to 3A.
      for (const id of ['e6', 'e5', 'e4']) {
        const entry = { id, timestamp: T0 + Number(id.slice(1)), amount: A };
        index.upsert(entry);
        model.set(id, entry);
      }
      checkAll(index, model, T0 + 4, T0 + 9, undefined);
      checkAll(index, model, T0 + 4, T0 + 9, 'e9');
    });
  });
});

describe('several fields of one index', () => {
  test.prop([
    fc.array(
      fc.record({
        kind: fc.constantFrom('append' as const, 'insert' as const, 'prune' as const, 'query' as const, 'remove' as const),
        t: fc.integer({ min: 0, max: 300 }),
        a: fc.option(fc.constantFrom('x', 'y', 'z', ''), { nil: undefined }),
        b: fc.option(fc.constantFrom('p', 'q'), { nil: undefined }),
        width: fc.integer({ min: 0, max: 200 }),
        pick: fc.nat(),
      }),
      { minLength: 1, maxLength: 120 },
    ),
  ])('distinct counts and countIn of two fields, entries with and without values, appends, inserts, removals and prunes: equal to a scan', (steps) => {
    const index = createWindowIndex();
    const model = new Map<string, WindowEntry>();
    let next = 0;
    let last = T0;
    let horizon = -Infinity;
    for (const s of steps) {
      if (s.kind === 'append' || s.kind === 'insert') {
        if (s.kind === 'append') last += 1 + (s.t % 5);
        const timestamp = s.kind === 'append' ? last : T0 + s.t;
        const values =
          s.a === undefined && s.b === undefined ? undefined : { ...(s.a === undefined ? {} : { a: s.a }), ...(s.b === undefined ? {} : { b: s.b }) };
        const entry: WindowEntry = values === undefined ? { id: `e${next++}`, timestamp, amount: 1n } : { id: `e${next++}`, timestamp, amount: 1n, values };
        index.upsert(entry);
        // An entry before the horizon is held until the next prune; queries start at the horizon.
        model.set(entry.id, entry);
      } else if (s.kind === 'remove' && model.size > 0) {
        const id = [...model.keys()][s.pick % model.size] as string;
        model.delete(id);
        index.remove(id);
      } else if (s.kind === 'prune') {
        const h = T0 + s.t;
        if (h > horizon) {
          horizon = h;
          for (const [id, e] of model) if (e.timestamp < h) model.delete(id);
        }
        index.pruneBefore(h);
      } else {
        const start = Math.max(T0 + s.t - s.width, horizon === -Infinity ? -Infinity : horizon);
        const end = T0 + s.t + s.width;
        const reference = toSeries(model.values());
        for (const field of ['a', 'b']) {
          const q = { series: 's', key: 'k', start, end, field };
          expect(index.distinctCount(start, end, field)).toBe(computeAggregate(reference, { ...q, fn: 'distinct' }));
          expect(index.countIn(start, end, field, ['x', 'q'])).toBe(computeAggregate(reference, { ...q, fn: 'countIn', values: ['x', 'q'] }));
        }
      }
    }
  });
});

describe('countIn and sumIn lists', () => {
  const entries: WindowEntry[] = Array.from({ length: 40 }, (_, i) => ({ id: `e${i}`, timestamp: T0 + i, amount: BigInt(i + 1), values: { cp: `v${i % 7}` } }));
  const reference = toSeries(entries);
  const lists = [
    ['v1', 'v1', 'v2'],
    ['v3', 'v2', 'v3', 'v3'],
    Array.from({ length: 30 }, (_, i) => `v${i % 10}`),
    Array.from({ length: 20 }, (_, i) => `w${i}`).concat(['v4']),
  ];
  it.each(lists.map((list) => [list.length, list] as const))(
    'a list of %i values, repeats counted once, over a window long enough for cursors: equal to a scan',
    (_, list) => {
      const index = indexOf(entries);
      for (const [start, end, excludeId] of [
        [T0, T0 + 39, undefined],
        [T0 + 5, T0 + 30, 'e11'],
        [T0 + 6, T0 + 31, 'e12'],
      ] as const) {
        const q = { series: 's', key: 'k', start, end, field: 'cp', values: list, excludeId };
        expect(index.countIn(start, end, 'cp', list, excludeId)).toBe(computeAggregate(reference, { ...q, fn: 'countIn' }));
        expect(index.sumIn(start, end, 'cp', list, excludeId)).toBe(computeAggregate(reference, { ...q, fn: 'sumIn' }));
      }
    },
  );
});

describe('visitLast', () => {
  const index = createWindowIndex();
  for (const [id, at, cp] of [
    ['a', 0, 'x'],
    ['b', 10, ''],
    ['c', 10, 'y'],
    ['d', 20, 'z'],
    ['e', 30, 'w'],
  ] as const) {
    index.upsert({ id, timestamp: 1_000 + at, amount: 1n, values: cp === '' ? {} : { cp } });
  }
  const visited = (start: number, end: number, limit: number, excludeId?: string) => {
    const out: [number, string | undefined][] = [];
    index.visitLast(1_000 + start, 1_000 + end, limit, 'cp', excludeId, (timestamp, value) => out.push([timestamp - 1_000, value]));
    return out;
  };
  const rows: { name: string; got: () => [number, string | undefined][]; expected: [number, string | undefined][] }[] = [
    {
      name: 'the last 2 of the window, oldest first',
      got: () => visited(0, 30, 2),
      expected: [
        [20, 'z'],
        [30, 'w'],
      ],
    },
    {
      name: 'ties in (timestamp, id) order; an empty value is undefined',
      got: () => visited(0, 10, 2),
      expected: [
        [10, undefined],
        [10, 'y'],
      ],
    },
    {
      name: 'an excluded entry among the last is skipped and one more taken',
      got: () => visited(0, 30, 2, 'e'),
      expected: [
        [10, 'y'],
        [20, 'z'],
      ],
    },
    {
      name: 'both window ends are inclusive',
      got: () => visited(10, 20, 10),
      expected: [
        [10, undefined],
        [10, 'y'],
        [20, 'z'],
      ],
    },
    { name: 'limit 0 visits nothing', got: () => visited(0, 30, 0), expected: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const before = index.scanned;
      const got = row.got();
      expect(got).toEqual(row.expected);
      expect(index.scanned - before).toBe(got.length);
    });
  }
});
