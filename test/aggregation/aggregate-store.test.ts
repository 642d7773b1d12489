import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import {
  computeAggregate,
  createAggregateStore,
  type AggregateFunction,
  type AggregateQuery,
  type AggregateValue,
  type SeriesEntry,
  type SeriesEntryRef,
} from '../../src/aggregation/aggregate-store.js';
import { windowStart } from '../../src/aggregation/time-window.js';
import { isTxmonError, type TxmonError } from '../../src/errors.js';

const T0 = 1_700_000_000_000;
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
  'hopsTo',
  'sharedSource',
  'lastEntries',
];

function caught(run: () => unknown): TxmonError {
  try {
    run();
  } catch (error) {
    if (isTxmonError(error)) return error;
    throw error;
  }
  throw new Error('expected a TxmonError');
}

const history: SeriesEntry[] = [
  { series: 'origin', key: 'u1', id: 't1', timestamp: T0, amount: 100n, values: { cp: 'u2' } },
  { series: 'origin', key: 'u1', id: 't2', timestamp: T0 + 10, amount: 250n, values: { cp: 'u3' } },
  { series: 'origin', key: 'u1', id: 't3', timestamp: T0 + 20, amount: null, values: { cp: 'u2' } },
  { series: 'origin', key: 'u2', id: 't4', timestamp: T0 + 5, amount: 999n, values: { cp: 'u1' } },
  { series: 'destination', key: 'u1', id: 't4', timestamp: T0 + 5, amount: 999n, values: { cp: 'u2' } },
];

describe('computeAggregate', () => {
  const base = { series: 'origin', key: 'u1', start: T0, end: T0 + 20 } as const;
  const cases: { name: string; input: AggregateQuery; expected: AggregateValue }[] = [
    { name: 'count only counts the series and key asked for', input: { ...base, fn: 'count' }, expected: 3 },
    { name: 'sum skips null amounts', input: { ...base, fn: 'sum' }, expected: 350n },
    { name: 'amountCount counts entries with an amount', input: { ...base, fn: 'amountCount' }, expected: 2 },
    { name: 'min of amounts', input: { ...base, fn: 'min' }, expected: 100n },
    { name: 'max of amounts', input: { ...base, fn: 'max' }, expected: 250n },
    { name: 'distinct values of a field', input: { ...base, fn: 'distinct', field: 'cp' }, expected: 2 },
    { name: 'distinct of a field no entry has', input: { ...base, fn: 'distinct', field: 'ip' }, expected: 0 },
    { name: 'excludeId leaves the entry out', input: { ...base, fn: 'sum', excludeId: 't2' }, expected: 100n },
    { name: 'start bound is inclusive', input: { ...base, start: T0 + 10, fn: 'count' }, expected: 2 },
    { name: 'end bound is inclusive', input: { ...base, end: T0 + 10, fn: 'count' }, expected: 2 },
    { name: 'min of no amounts is null', input: { ...base, start: T0 + 20, fn: 'min' }, expected: null },
    { name: 'sum of nothing is 0n', input: { ...base, key: 'nobody', fn: 'sum' }, expected: 0n },
    { name: 'countIn counts entries whose value is listed', input: { ...base, fn: 'countIn', field: 'cp', values: ['u2'] }, expected: 2 },
    { name: 'sumIn sums the listed entries, skipping null amounts', input: { ...base, fn: 'sumIn', field: 'cp', values: ['u2'] }, expected: 100n },
    { name: 'sumIn over several values', input: { ...base, fn: 'sumIn', field: 'cp', values: ['u2', 'u3'] }, expected: 350n },
    { name: 'sumIn with no values is 0n', input: { ...base, fn: 'sumIn', field: 'cp', values: [] }, expected: 0n },
    { name: 'sumIn honours excludeId', input: { ...base, fn: 'sumIn', field: 'cp', values: ['u2', 'u3'], excludeId: 't1' }, expected: 250n },
    { name: 'lastAmountCount: the last entry has a null amount', input: { ...base, fn: 'lastAmountCount', limit: 1 }, expected: 0 },
    { name: 'lastAmountCount: the last two entries, one with an amount', input: { ...base, fn: 'lastAmountCount', limit: 2 }, expected: 1 },
    { name: 'lastAmountCount: a limit larger than the window counts what exists', input: { ...base, fn: 'lastAmountCount', limit: 10 }, expected: 2 },
    { name: 'lastAmountCount: limit 0 is 0', input: { ...base, fn: 'lastAmountCount', limit: 0 }, expected: 0 },
    {
      name: 'lastAmountCount: excludeId skips the entry, the one before takes its place',
      input: { ...base, fn: 'lastAmountCount', limit: 1, excludeId: 't3' },
      expected: 1,
    },
    { name: 'lastAmountCount: only the window counts', input: { ...base, start: T0 + 10, fn: 'lastAmountCount', limit: 5 }, expected: 1 },
    { name: 'lastMin of the last two entries is the only amount among them', input: { ...base, fn: 'lastMin', limit: 2 }, expected: 250n },
    { name: 'lastMin of the last three reaches the first entry', input: { ...base, fn: 'lastMin', limit: 3 }, expected: 100n },
    { name: 'lastMax of the last entry alone (null amount) is null', input: { ...base, fn: 'lastMax', limit: 1 }, expected: null },
    { name: 'lastMax with the middle entry excluded looks one further back', input: { ...base, fn: 'lastMax', limit: 2, excludeId: 't2' }, expected: 100n },
    { name: 'lastMin with limit 0 is null', input: { ...base, fn: 'lastMin', limit: 0 }, expected: null },
    {
      name: 'lastEntries lists the last two entries oldest first, values and null amounts kept',
      input: { ...base, fn: 'lastEntries', limit: 2 },
      expected: [
        { id: 't2', timestamp: T0 + 10, amount: 250n, values: { cp: 'u3' } },
        { id: 't3', timestamp: T0 + 20, amount: null, values: { cp: 'u2' } },
      ],
    },
    {
      name: 'lastEntries with the last entry excluded looks one further back',
      input: { ...base, fn: 'lastEntries', limit: 2, excludeId: 't3' },
      expected: [
        { id: 't1', timestamp: T0, amount: 100n, values: { cp: 'u2' } },
        { id: 't2', timestamp: T0 + 10, amount: 250n, values: { cp: 'u3' } },
      ],
    },
    { name: 'lastEntries with limit 0 is an empty list', input: { ...base, fn: 'lastEntries', limit: 0 }, expected: [] },
    {
      name: 'lastEntries of another key lists only that key',
      input: { ...base, key: 'u2', fn: 'lastEntries', limit: 5 },
      expected: [{ id: 't4', timestamp: T0 + 5, amount: 999n, values: { cp: 'u1' } }],
    },
  ];
  it.each(cases)('$name', ({ input, expected }) => {
    expect(computeAggregate(history, input)).toEqual(expected);
  });

  const invalid: { name: string; input: AggregateQuery; expected: string }[] = [
    { name: 'distinct without a field', input: { ...base, fn: 'distinct' }, expected: '/field' },
    { name: 'countIn without a field', input: { ...base, fn: 'countIn', values: ['u2'] }, expected: '/field' },
    { name: 'sumIn without a field', input: { ...base, fn: 'sumIn', values: ['u2'] }, expected: '/field' },
    { name: 'lastAmountCount without a limit', input: { ...base, fn: 'lastAmountCount' }, expected: '/limit' },
    { name: 'lastMin with a negative limit', input: { ...base, fn: 'lastMin', limit: -1 }, expected: '/limit' },
    { name: 'lastMax with a fractional limit', input: { ...base, fn: 'lastMax', limit: 1.5 }, expected: '/limit' },
    { name: 'lastEntries without a limit', input: { ...base, fn: 'lastEntries' }, expected: '/limit' },
    { name: 'lastEntries with a limit of 1,001 (one above the maximum)', input: { ...base, fn: 'lastEntries', limit: 1001 }, expected: '/limit' },
    { name: 'an unknown function', input: { ...base, fn: 'median' as AggregateFunction }, expected: '/fn' },
  ];
  it.each(invalid)('rejects $name with VALIDATION_FAILED at $expected, like the store', ({ input, expected }) => {
    const error = caught(() => computeAggregate(history, input));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d) => d.path)).toEqual([expected]);
    const stored = caught(() => createAggregateStore().query(input));
    expect(stored.details.map((d) => d.path)).toEqual([expected]);
  });
});

describe('createAggregateStore', () => {
  it('answers an unknown series or key as an empty history', () => {
    const store = createAggregateStore();
    const q = { series: 'origin', key: 'u1', start: 0, end: T0, field: 'cp', values: ['a'], limit: 2, fanOut: 2 };
    expect(FUNCTIONS.map((fn) => store.query({ ...q, fn }))).toEqual([0, 0n, 0, null, null, 0, null, 0, 0n, 0, null, null, 0, 0, []]);
    expect(store.entries('origin', 'u1')).toEqual([]);
  });

  it('keeps series and keys apart', () => {
    const store = createAggregateStore();
    store.apply([], history);
    expect(store.entries('origin', 'u1').map((e) => e.id)).toEqual(['t1', 't2', 't3']);
    expect(store.entries('origin', 'u2')).toEqual([history[3]]);
    expect(store.entries('destination', 'u1')).toEqual([history[4]]);
    expect(store.query({ series: 'destination', key: 'u1', start: T0, end: T0 + 20, fn: 'count' })).toBe(1);
  });

  it('apply removes first, then adds, so a ref and an entry with the same id replace it', () => {
    const store = createAggregateStore();
    store.apply([], history);
    const ref: SeriesEntryRef = { series: 'origin', key: 'u1', id: 't2' };
    store.apply([ref], [{ ...(history[1] as SeriesEntry), amount: 1n }]);
    expect(store.query({ series: 'origin', key: 'u1', start: T0, end: T0 + 20, fn: 'sum' })).toBe(101n);
    expect(store.entries('origin', 'u1')).toHaveLength(3);
  });

  it('apply replaces an entry added again with the same id (an updated transaction counts once)', () => {
    const store = createAggregateStore();
    store.apply([], history);
    store.apply([], [{ ...(history[0] as SeriesEntry), timestamp: T0 + 15, amount: 7n }]);
    expect(store.entries('origin', 'u1').map((e) => [e.id, e.amount])).toEqual([
      ['t2', 250n],
      ['t1', 7n],
      ['t3', null],
    ]);
  });

  it('apply ignores refs to entries it does not hold', () => {
    const store = createAggregateStore();
    store.apply([], history);
    store.apply(
      [
        { series: 'origin', key: 'u1', id: 'nope' },
        { series: 'x', key: 'y', id: 'z' },
      ],
      [],
    );
    expect(store.entries('origin', 'u1')).toHaveLength(3);
  });

  it('apply rejects a non-finite timestamp at /add/<i>/timestamp and changes nothing', () => {
    const store = createAggregateStore();
    store.apply([], history);
    const error = caught(() =>
      store.apply(
        [{ series: 'origin', key: 'u1', id: 't1' }],
        [
          { series: 'origin', key: 'u1', id: 'ok', timestamp: T0, amount: 1n },
          { series: 'origin', key: 'u1', id: 'bad', timestamp: Number.POSITIVE_INFINITY, amount: 1n },
        ],
      ),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d) => d.path)).toEqual(['/add/1/timestamp']);
    expect(store.entries('origin', 'u1').map((e) => e.id)).toEqual(['t1', 't2', 't3']);
  });

  it('sums money exactly: 3 × 3333.33 + 0.01 reaches 10000.00 (10^-8 units)', () => {
    const store = createAggregateStore();
    const entry = (id: string, amount: bigint): SeriesEntry => ({ series: 's', key: 'k', id, timestamp: T0, amount });
    store.apply([], [entry('a', 333_333_000_000n), entry('b', 333_333_000_000n), entry('c', 333_333_000_000n), entry('d', 1_000_000n)]);
    expect(store.query({ series: 's', key: 'k', start: T0, end: T0, fn: 'sum' })).toBe(1_000_000_000_000n);
  });
});

describe('query', () => {
  // A rolling 1-day window ending at the current transaction.
  const end = Date.UTC(2024, 5, 15, 12);
  const start = windowStart(end, { units: 1, granularity: 'day', rollingBasis: true });
  const store = createAggregateStore();
  const at = (id: string, timestamp: number): SeriesEntry => ({ series: 's', key: 'k', id, timestamp, amount: 1n });
  store.apply([], [at('before', start - 1), at('start', start), at('end', end), at('after', end + 1)]);

  const cases: { name: string; input: { start: number; end: number; excludeId?: string }; expected: number }[] = [
    { name: 'an entry exactly at the window start is in and one 1 ms before is out; the end is in', input: { start, end }, expected: 2 },
    { name: 'excluding the current transaction leaves the start entry', input: { start, end, excludeId: 'end' }, expected: 1 },
    { name: 'one ms later, the start entry falls out', input: { start: start + 1, end: end + 1 }, expected: 2 },
  ];
  it.each(cases)('$name', ({ input, expected }) => {
    expect(store.query({ series: 's', key: 'k', fn: 'count', ...input })).toBe(expected);
  });

  it('rejects distinct without a field at /field', () => {
    const error = caught(() => store.query({ series: 's', key: 'k', start, end, fn: 'distinct' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d) => d.path)).toEqual(['/field']);
  });

  it('rejects an unknown function at /fn, also for unknown keys', () => {
    const error = caught(() => store.query({ series: 'x', key: 'y', start, end, fn: 'median' as AggregateFunction }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((d) => d.path)).toEqual(['/fn']);
  });
});

describe('queryMany', () => {
  it('answers in the order of the queries', () => {
    const store = createAggregateStore();
    store.apply([], history);
    const q = { series: 'origin', key: 'u1', start: T0, end: T0 + 20 };
    expect(
      store.queryMany([
        { ...q, fn: 'sum' },
        { ...q, fn: 'count', excludeId: 't1' },
        { ...q, fn: 'distinct', field: 'cp' },
        { ...q, fn: 'max' },
      ]),
    ).toEqual([350n, 2, 2, 250n]);
  });

  it('names the index of a distinct query without a field', () => {
    const store = createAggregateStore();
    const q = { series: 'origin', key: 'u1', start: T0, end: T0 + 20 };
    const error = caught(() =>
      store.queryMany([
        { ...q, fn: 'count' },
        { ...q, fn: 'distinct' },
      ]),
    );
    expect(error.details.map((d) => d.path)).toEqual(['/1/field']);
  });

  it('names the index of a last… query without a limit', () => {
    const store = createAggregateStore();
    const q = { series: 'origin', key: 'u1', start: T0, end: T0 + 20 };
    const error = caught(() =>
      store.queryMany([
        { ...q, fn: 'lastMin', limit: 1 },
        { ...q, fn: 'count' },
        { ...q, fn: 'lastMax' },
      ]),
    );
    expect(error.details.map((d) => d.path)).toEqual(['/2/limit']);
  });

  it('answers sumIn and the last… functions beside the other functions', () => {
    const store = createAggregateStore();
    store.apply([], history);
    const q = { series: 'origin', key: 'u1', start: T0, end: T0 + 20 };
    expect(
      store.queryMany([
        { ...q, fn: 'sumIn', field: 'cp', values: ['u3'] },
        { ...q, fn: 'lastAmountCount', limit: 2 },
        { ...q, fn: 'lastMin', limit: 3 },
        { ...q, fn: 'lastMax', limit: 3 },
      ]),
    ).toEqual([250n, 1, 100n, 250n]);
  });
});

describe('query: the last-N functions at boundaries', () => {
  const store = createAggregateStore();
  const e = (id: string, timestamp: number, amount: bigint | null): SeriesEntry => ({ series: 's', key: 'k', id, timestamp, amount });
  store.apply([], [e('a', 1, 10n), e('b', 2, 20n), e('c', 2, null), e('d', 3, 40n)]);
  const q = { series: 's', key: 'k', start: Number.NEGATIVE_INFINITY, end: 3 };
  const rows: { name: string; input: Record<string, unknown>; expected: unknown }[] = [
    { name: 'limit larger than the history counts what exists', input: { fn: 'lastAmountCount', limit: 99 }, expected: 3 },
    { name: 'excludeId = the last entry: the one before takes its place', input: { fn: 'lastMax', limit: 1, excludeId: 'd' }, expected: null },
    { name: 'equal timestamps are ordered by id (c after b)', input: { fn: 'lastMin', limit: 2, excludeId: 'd' }, expected: 20n },
    { name: 'excludeId outside the window changes nothing', input: { fn: 'lastAmountCount', limit: 2, end: 2, excludeId: 'd' }, expected: 1 },
    { name: 'limit 0 is empty', input: { fn: 'lastMin', limit: 0 }, expected: null },
  ];
  it.each(rows)('$name', ({ input, expected }) => {
    expect(store.query({ ...q, ...input } as never)).toBe(expected);
  });
  const listRows: { name: string; input: Record<string, unknown>; expected: string[] }[] = [
    { name: 'lastEntries at the maximum limit (1,000) lists what exists', input: { limit: 1000 }, expected: ['a', 'b', 'c', 'd'] },
    { name: 'lastEntries orders equal timestamps by id (c after b)', input: { limit: 2, excludeId: 'd' }, expected: ['b', 'c'] },
    { name: 'lastEntries stops at the window end', input: { limit: 2, end: 2 }, expected: ['b', 'c'] },
  ];
  it.each(listRows)('$name', ({ input, expected }) => {
    const listed = store.query({ ...q, fn: 'lastEntries', ...input } as never) as readonly SeriesEntry[];
    expect(listed.map((e) => e.id)).toEqual(expected);
  });
});

describe('queryMany: a batch that throws or is re-entered', () => {
  const entries: SeriesEntry[] = [];
  for (let k = 0; k < 12; k++) {
    for (let i = 0; i < 5; i++)
      entries.push({ series: 'user-sending', key: `u${k}`, id: `t${k}-${i}`, timestamp: 1000 + i * 10 + k, amount: BigInt((k + 1) * 100 + i) });
  }
  const q = (key: string, fn: AggregateQuery['fn'] = 'sum'): AggregateQuery => ({ series: 'user-sending', key, start: 0, end: 10_000, fn }) as AggregateQuery;

  it('a batch that throws half-way does not change the answers of later batches (also after writes)', () => {
    const store = createAggregateStore();
    store.apply([], entries);
    const bad = { series: 'user-sending', key: 'u1', start: 0, end: 10, fn: 'bogus' } as unknown as AggregateQuery;
    expect(() => store.queryMany([q('u0'), q('u1'), bad, q('u2')])).toThrow();
    // A write between batches: u1 gets a new entry, u0 disappears.
    const added: SeriesEntry = { series: 'user-sending', key: 'u1', id: 'new', timestamp: 2000, amount: 7n };
    store.apply(
      entries.filter((e) => e.key === 'u0'),
      [added],
    );
    const all = [...entries.filter((e) => e.key !== 'u0'), added];
    const batch = [q('u0'), q('u1'), q('u2'), q('u1', 'count'), q('u0', 'count')];
    expect(store.queryMany(batch)).toEqual(batch.map((x) => computeAggregate(all, x)));
  });

  it('a re-entrant batch (a query whose key getter runs another batch) still answers every query right', () => {
    const store = createAggregateStore();
    store.apply([], entries);
    let inner: unknown[] | null = null;
    const reentrant = {
      series: 'user-sending',
      get key() {
        if (inner === null) inner = store.queryMany([q('u9'), q('u10'), q('u11'), q('u3')]);
        return 'u4';
      },
      start: 0,
      end: 10_000,
      fn: 'sum',
    } as unknown as AggregateQuery;
    const batch = [q('u0'), q('u1'), reentrant, q('u0'), q('u1'), q('u3'), q('u4'), q('u9'), q('u5'), q('u6'), q('u7'), q('u8'), q('u2')];
    const got = store.queryMany(batch);
    const keys = ['u0', 'u1', 'u4', 'u0', 'u1', 'u3', 'u4', 'u9', 'u5', 'u6', 'u7', 'u8', 'u2'];
    expect(got).toEqual(keys.map((k) => computeAggregate(entries, q(k))));
    expect(inner).toEqual(['u9', 'u10', 'u11', 'u3'].map((k) => computeAggregate(entries, q(k))));
  });

  describe('edge cases', () => {
    it('a batch re-entered while it records a (series, key) pair answers a later query with that query’s own series index', () => {
      // A batch that starts while another records a (series, key) pair (here from a getter; any
      // synchronous call back into the store) must not disturb the first batch's bookkeeping: were
      // it shared, (user-receiving, u4) could be answered from the cached index of (user-sending, u4).
      const store = createAggregateStore();
      const receiving: SeriesEntry[] = [
        { series: 'user-receiving', key: 'u4', id: 'r1', timestamp: 1000, amount: 1n },
        { series: 'user-receiving', key: 'u5', id: 'r2', timestamp: 1000, amount: 2n },
      ];
      store.apply([], [...entries, ...receiving]);
      const at = (series: string, key: string): AggregateQuery => ({ series, key, start: 0, end: 10_000, fn: 'sum' }) as AggregateQuery;
      let reads = 0;
      const reentrant = {
        series: 'user-sending',
        get key() {
          reads += 1;
          // 1st read: the cache scan (one cached pair), 2nd: the index lookup, 3rd: the push.
          if (reads === 3) store.queryMany([at('user-receiving', 'zz')]);
          return 'u4';
        },
        start: 0,
        end: 10_000,
        fn: 'sum',
      } as unknown as AggregateQuery;
      const batch = [at('user-sending', 'u0'), reentrant, at('user-receiving', 'u5'), at('user-receiving', 'u4')];
      const got = store.queryMany(batch);
      const all = [...entries, ...receiving];
      expect(got).toEqual(
        [at('user-sending', 'u0'), at('user-sending', 'u4'), at('user-receiving', 'u5'), at('user-receiving', 'u4')].map((x) => computeAggregate(all, x)),
      );
    });
  });
});

describe('pruneBefore', () => {
  it('drops old entries in every series and key and forgets emptied keys', () => {
    const store = createAggregateStore();
    store.apply([], history);
    store.pruneBefore(T0 + 10);
    expect(store.entries('origin', 'u1').map((e) => e.id)).toEqual(['t2', 't3']);
    expect(store.entries('origin', 'u2')).toEqual([]);
    expect(store.entries('destination', 'u1')).toEqual([]);
    expect(store.query({ series: 'origin', key: 'u1', start: T0 + 10, end: T0 + 20, fn: 'sum' })).toBe(250n);
  });

  it('with a series, drops only that series, counts what it dropped and records its horizon', () => {
    const store = createAggregateStore();
    store.apply([], history);
    const before = store.entries('destination', 'u1').length;
    expect(store.pruneBefore(T0 + 10, 'origin')).toBe(history.filter((e) => e.series === 'origin' && e.timestamp < T0 + 10).length);
    expect(store.entries('destination', 'u1')).toHaveLength(before);
    expect(store.retainedFrom()).toEqual(new Map([['origin', T0 + 10]]));
    // A lower horizon drops nothing more and keeps the higher one.
    expect(store.pruneBefore(T0, 'origin')).toBe(0);
    expect(store.retainedFrom()).toEqual(new Map([['origin', T0 + 10]]));
  });

  it('dropping a series forgets its horizon: what is added next is its whole history', () => {
    const store = createAggregateStore();
    store.apply([], history);
    store.pruneBefore(T0 + 10, 'origin');
    store.dropSeries('origin');
    expect(store.retainedFrom().has('origin')).toBe(false);
    store.apply([], [{ series: 'origin', key: 'u1', id: 'old', timestamp: T0 - 1_000, amount: 1n }]);
    expect(store.entries('origin', 'u1').map((e) => e.id)).toEqual(['old']);
  });

  it('a key created after a prune still answers exactly', () => {
    const store = createAggregateStore();
    store.pruneBefore(T0);
    store.apply([], [{ series: 'n', key: 'k', id: 'a', timestamp: T0 + 1, amount: 5n }]);
    expect(store.query({ series: 'n', key: 'k', start: T0, end: T0 + 1, fn: 'sum' })).toBe(5n);
  });
});

// ---------------------------------------------------------------------------------------------
// Model-based property: the store against computeAggregate over a plain Map of entries.

const seriesArb = fc.constantFrom('origin', 'destination');
const keyArb = fc.constantFrom('u1', 'u2', 'u3');
const idArb = fc.integer({ min: 0, max: 25 }).map((i) => `t${i}`);
const entryArb: fc.Arbitrary<SeriesEntry> = fc
  .record({
    series: seriesArb,
    key: keyArb,
    id: idArb,
    timestamp: fc.oneof(
      fc.integer({ min: 0, max: 100 }).map((x) => T0 + x * 1000),
      fc.double({ min: T0, max: T0 + 100_000, noNaN: true }),
    ),
    amount: fc.option(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), { nil: null }),
    // Values that are keys too make edges for the graph functions.
    values: fc.option(fc.record({ cp: fc.constantFrom('', 'a', 'b', 'c', 'u1', 'u2', 'u3') }, { requiredKeys: [] }), { nil: undefined }),
  })
  .map(({ values, ...rest }) => (values === undefined ? rest : { ...rest, values }));
const refArb: fc.Arbitrary<SeriesEntryRef> = fc.record({ series: seriesArb, key: keyArb, id: idArb });
const queryArb: fc.Arbitrary<AggregateQuery> = fc
  .record({
    series: seriesArb,
    key: keyArb,
    a: fc.integer({ min: -2, max: 102 }),
    b: fc.integer({ min: -2, max: 102 }),
    fn: fc.constantFrom(...FUNCTIONS),
    excludeId: fc.option(idArb, { nil: undefined }),
    includeValue: fc.option(fc.constantFrom('', 'a', 'b', 'd', 'u1', 'u2'), { nil: undefined }),
    values: fc.subarray(['a', 'b', 'c', 'd', 'u1', 'u2', 'u3']),
    limit: fc.integer({ min: 0, max: 8 }),
    fanOut: fc.integer({ min: 1, max: 4 }),
  })
  .map(({ a, b, excludeId, includeValue, values, limit, fanOut, ...rest }) => {
    // A path search takes 1 to 6 edges.
    const edges = rest.fn === 'hopsTo' ? Math.min(Math.max(limit, 1), 6) : limit;
    const q: AggregateQuery = { ...rest, start: T0 + Math.min(a, b) * 1000, end: T0 + Math.max(a, b) * 1000, field: 'cp', values, limit: edges, fanOut };
    return {
      ...q,
      ...(excludeId === undefined ? {} : { excludeId }),
      ...(includeValue === undefined ? {} : { includeValue }),
    };
  });

type StoreOp = { kind: 'apply'; remove: SeriesEntryRef[]; add: SeriesEntry[] } | { kind: 'prune'; at: number } | { kind: 'query'; qs: AggregateQuery[] };

const storeOpArb: fc.Arbitrary<StoreOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({ kind: fc.constant('apply' as const), remove: fc.array(refArb, { maxLength: 3 }), add: fc.array(entryArb, { maxLength: 6 }) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('prune' as const), at: fc.integer({ min: 0, max: 100 }).map((x) => T0 + x * 1000) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('query' as const), qs: fc.array(queryArb, { minLength: 1, maxLength: 6 }) }) },
);

const modelKey = (e: SeriesEntryRef): string => JSON.stringify([e.series, e.key, e.id]);

describe('properties', () => {
  test.prop([fc.array(storeOpArb, { maxLength: 40, size: 'large' })])(
    'queryMany equals computeAggregate over the held entries, after any applies and prunes',
    (ops) => {
      const store = createAggregateStore();
      const model = new Map<string, SeriesEntry>();
      // Each series held keeps the highest horizon passed while it was held.
      const horizons = new Map<string, number>();
      for (const op of ops) {
        if (op.kind === 'apply') {
          store.apply(op.remove, op.add);
          for (const ref of op.remove) model.delete(modelKey(ref));
          for (const entry of op.add) model.set(modelKey(entry), entry);
        } else if (op.kind === 'prune') {
          store.pruneBefore(op.at);
          for (const series of new Set([...model.values()].map((e) => e.series))) {
            if (!(op.at > (horizons.get(series) ?? -Infinity))) continue;
            horizons.set(series, op.at);
            for (const [k, e] of model) if (e.series === series && e.timestamp < op.at) model.delete(k);
          }
        } else {
          const all = [...model.values()];
          expect(store.queryMany(op.qs)).toEqual(op.qs.map((q) => computeAggregate(all, q)));
        }
      }
      for (const series of ['origin', 'destination']) {
        for (const key of ['u1', 'u2', 'u3']) {
          const expected = [...model.values()]
            .filter((e) => e.series === series && e.key === key)
            .sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          expect(store.entries(series, key)).toEqual(expected);
        }
      }
    },
  );

  test.prop([
    fc.uniqueArray(entryArb, { selector: (e) => modelKey(e), maxLength: 40 }),
    fc.array(queryArb, { minLength: 1, maxLength: 10 }),
    fc.infiniteStream(fc.nat()),
  ])('the arrival order of entries never changes an answer', (entries, qs, randoms) => {
    const inOrder = createAggregateStore();
    inOrder.apply([], entries);
    const shuffled = [...entries];
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = (randoms.next().value as number) % (i + 1);
      [shuffled[i], shuffled[j]] = [shuffled[j] as SeriesEntry, shuffled[i] as SeriesEntry];
    }
    const oneByOne = createAggregateStore();
    for (const entry of shuffled) oneByOne.apply([], [entry]);
    expect(oneByOne.queryMany(qs)).toEqual(inOrder.queryMany(qs));
  });

  test.prop([fc.array(entryArb, { maxLength: 40 }), fc.integer({ min: 0, max: 100 }), fc.array(queryArb, { minLength: 1, maxLength: 10 })])(
    'after pruneBefore, queries inside the retained range stay exact',
    (entries, cut, qs) => {
      const horizon = T0 + cut * 1000;
      const store = createAggregateStore();
      store.apply([], entries);
      const before = store.queryMany(qs);
      store.pruneBefore(horizon);
      const after = store.queryMany(qs);
      qs.forEach((q, i) => {
        if (q.start >= horizon) expect(after[i]).toEqual(before[i]);
      });
    },
  );
});

// Graph functions on dense little graphs: few keys, few instants (ties between consecutive
// edges are common), every value a key, so paths, shared sources and the fan-out cap all matter.
const GRAPH_KEYS = ['u1', 'u2', 'u3', 'u4'];
const graphEntryArb: fc.Arbitrary<SeriesEntry> = fc.record({
  series: fc.constant('g'),
  key: fc.constantFrom(...GRAPH_KEYS),
  id: fc.integer({ min: 0, max: 30 }).map((i) => `t${i}`),
  timestamp: fc.integer({ min: 0, max: 6 }).map((x) => T0 + x * 1000),
  amount: fc.constant(1n),
  values: fc.record({ cp: fc.constantFrom('', ...GRAPH_KEYS) }),
});
const graphQueryArb: fc.Arbitrary<AggregateQuery> = fc
  .record({
    key: fc.constantFrom(...GRAPH_KEYS),
    a: fc.integer({ min: 0, max: 6 }),
    b: fc.integer({ min: 0, max: 6 }),
    fn: fc.constantFrom<AggregateFunction>('hopsTo', 'sharedSource'),
    values: fc.subarray(GRAPH_KEYS, { minLength: 1 }),
    limit: fc.integer({ min: 1, max: 4 }),
    fanOut: fc.integer({ min: 1, max: 4 }),
    excludeId: fc.option(
      fc.integer({ min: 0, max: 30 }).map((i) => `t${i}`),
      { nil: undefined },
    ),
    includeValue: fc.option(fc.constantFrom('', ...GRAPH_KEYS), { nil: undefined }),
  })
  .map(({ a, b, excludeId, includeValue, ...rest }) => ({
    ...rest,
    series: 'g',
    field: 'cp',
    start: T0 + Math.min(a, b) * 1000,
    end: T0 + Math.max(a, b) * 1000,
    ...(excludeId === undefined ? {} : { excludeId }),
    ...(includeValue === undefined ? {} : { includeValue }),
  }));

describe('properties: graph functions', () => {
  test.prop([fc.uniqueArray(graphEntryArb, { selector: (e) => e.key + e.id, maxLength: 40 }), fc.array(graphQueryArb, { minLength: 1, maxLength: 8 })], {
    numRuns: 300,
  })('hopsTo and sharedSource equal the brute-force reference on dense graphs with ties, light slots and full indexes alike', (entries, qs) => {
    const store = createAggregateStore();
    store.apply([], entries);
    expect(store.queryMany(qs)).toEqual(qs.map((q) => computeAggregate(entries, q)));
    // The same history once every key has been made a full index (by a query of its own).
    for (const key of GRAPH_KEYS) store.query({ series: 'g', key, start: T0, end: T0, fn: 'count' });
    expect(store.queryMany(qs)).toEqual(qs.map((q) => computeAggregate(entries, q)));
  });
});
