import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { createWindowIndex, type WindowEntry, type WindowIndex } from '../../src/aggregation/window-index.js';
import { computeAggregate, queryIndex, type AggregateFunction, type SeriesEntry } from '../../src/aggregation/aggregate-store.js';
import { isTxmonError } from '../../src/errors.js';

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

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
const LAST_FUNCTIONS: ReadonlySet<AggregateFunction> = new Set(['lastAmountCount', 'lastMin', 'lastMax']);


/** The value set every `countIn` / `sumIn` check of this file uses (in `ask` and in the reference queries). */
const COUNT_IN_VALUES: readonly string[] = ['x', 'v1', 'v5', 'a', '7'];

const FUNCTIONS: readonly AggregateFunction[] = ['count', 'sum', 'amountCount', 'min', 'max', 'distinct', 'latest', 'countIn', 'sumIn', 'lastAmountCount', 'lastMin', 'lastMax'];

/** The reference query of `ask`. */
function referenceQuery(fn: AggregateFunction, start: number, end: number, field: string, excludeId?: string, last: LastParams = LAST) {
  return { series: 's', key: 'k', start, end, fn, field, values: COUNT_IN_VALUES, ...last, ...(excludeId === undefined ? {} : { excludeId }) };
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
    { name: 'an excluded entry outside the last ones changes nothing', input: { ...all, limit: 2, excludeId: 'a' }, expected: { count: 2, min: 100n, max: 900n } },
    { name: 'equal timestamps are ordered by id: c is after b', input: { start: T0 + 1000, end: T0 + 1000, limit: 1 }, expected: { count: 1, min: -200n, max: -200n } },
    { name: 'equal timestamps: excluding c leaves b (null amount)', input: { start: T0 + 1000, end: T0 + 1000, limit: 1, excludeId: 'c' }, expected: { count: 0, min: null, max: null } },
    { name: 'a limit beyond the window covers the window only', input: { start: T0 + 2000, end: T0 + 3000, limit: 100 }, expected: { count: 2, min: 100n, max: 900n } },
    { name: 'the window end bounds the look-back: later entries are not "last"', input: { start: -Infinity, end: T0 + 999, limit: 1 }, expected: { count: 1, min: 500n, max: 500n } },
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
  // The largest amount still kept as a number; odd, so sums of a few of them need more than 53 bits.
  const A = 2n ** 52n - 1n;

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
const opArbWith = (amountArb: fc.Arbitrary<bigint>): fc.Arbitrary<Op> => fc.oneof(
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
  return [...model.values()].sort((a, b) =>
    a.timestamp !== b.timestamp ? a.timestamp - b.timestamp : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
  );
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
          expect(queryIndex(index, q), `${fn}(${field}) [${start}, ${end}] excl ${excludeId} ${last.limit}`).toEqual(
            computeAggregate(reference, q),
          );
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

  test.prop([
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
  ], { numRuns: 40 })('the engine pattern — append, query the window ending at the new entry excluding it, prune — matches a scan', (steps, window) => {
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
    fc.array(fc.record({ width: fc.integer({ min: 0, max: 200 }), step: fc.integer({ min: 0, max: 40 }), ex: fc.nat(), set: fc.subarray(['v1', 'v2', 'v5', 'v7', 'none']) }), { minLength: 1, maxLength: 12 }),
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
    fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.option(fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }), { nil: null })), { minLength: 70, maxLength: 300, size: 'max' }),
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
  ])('sumIn, countIn and distinct on one field over sliding long windows match a scan (cursors with and without sums shared, edits invalidate them)', (rows, queries) => {
    const model = new Map<string, WindowEntry>();
    rows.forEach(([t, amount], i) => model.set(`e${i}`, { id: `e${i}`, timestamp: T0 + t, amount, values: { cp: `v${(i * 31) % 23}` } }));
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
  });

  test.prop([
    fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 70, maxLength: 300, size: 'max' }),
    fc.array(fc.record({ width: fc.integer({ min: 0, max: 200 }), step: fc.integer({ min: 0, max: 40 }), ex: fc.nat(), inc: fc.option(fc.constantFrom('v1', 'v5', 'new', ''), { nil: undefined }) }), { minLength: 1, maxLength: 12 }),
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
        series: 's', key: 'k', start, end, fn: 'distinct', field: 'cp', values: COUNT_IN_VALUES, excludeId, ...(q.inc === undefined ? {} : { includeValue: q.inc }),
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
          expect(queryIndex(index, referenceQuery(fn, start, end, 'cp', undefined, last))).toEqual(computeAggregate(reference, referenceQuery(fn, start, end, 'cp', undefined, last)));
        }
      }
    },
  );
});
