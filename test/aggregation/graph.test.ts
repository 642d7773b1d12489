import { describe, expect, it } from 'vitest';
import { createAggregateStore, type AggregateQuery, type SeriesEntry } from '../../src/aggregation/aggregate-store.js';
import { isTxmonError } from '../../src/errors.js';

const T0 = 1_700_000_000_000;

/** `keys` users each sending `perKey` transfers, one a minute, to pseudo-random other users (a dense graph: every search runs to its bound). */
function denseHistory(keys: number, perKey: number): SeriesEntry[] {
  const entries: SeriesEntry[] = [];
  let seed = 7;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed;
  };
  for (let k = 0; k < keys; k++) {
    for (let i = 0; i < perKey; i++) {
      const to = (k + 1 + (next() % (keys - 1))) % keys;
      entries.push({ series: 's', key: `k${k}`, id: `k${k}-${i}`, timestamp: T0 + i * 60_000 + k, amount: 1n, values: { cp: `k${to}` } });
    }
  }
  return entries;
}

/** The most edges a path search may read: every layer's keys (1, f, f², …) times f edges each. */
const hopsBound = (fanOut: number, limit: number) => {
  let total = 0;
  for (let d = 1; d <= limit; d++) total += fanOut ** d;
  return total;
};

describe('graph functions: work bounded by the query, whatever the history', () => {
  const sizes = [20, 200, 2_000];
  for (const [fanOut, limit] of [
    [2, 3],
    [4, 3],
    [3, 5],
  ] as const) {
    it(`hopsTo with fanOut ${fanOut} and limit ${limit} reads at most ${hopsBound(fanOut, limit)} edges for ${sizes.join(', ')} transfers per user`, () => {
      for (const perKey of sizes) {
        const store = createAggregateStore();
        store.apply([], denseHistory(40, perKey));
        const end = T0 + perKey * 60_000;
        // An unreachable target: the search runs every layer.
        const q: AggregateQuery = { series: 's', key: 'k0', start: T0, end, fn: 'hopsTo', field: 'cp', values: ['nobody'], limit, fanOut };
        const before = store.scannedEdges;
        expect(store.query(q)).toBe(0);
        const read = store.scannedEdges - before;
        expect(read).toBeGreaterThanOrEqual(fanOut);
        expect(read).toBeLessThanOrEqual(hopsBound(fanOut, limit));
      }
    });
  }

  it('sharedSource with fanOut 8 reads at most 8 × (8 + 2) edges for 20, 200, 2,000 transfers per user', () => {
    for (const perKey of sizes) {
      const store = createAggregateStore();
      store.apply([], denseHistory(40, perKey));
      const q: AggregateQuery = {
        series: 's',
        key: 'k0',
        start: T0,
        end: T0 + perKey * 60_000,
        fn: 'sharedSource',
        field: 'cp',
        includeValue: 'k9',
        fanOut: 8,
      };
      const before = store.scannedEdges;
      store.query(q);
      const read = store.scannedEdges - before;
      expect(read).toBeGreaterThan(8);
      expect(read).toBeLessThanOrEqual(8 * (8 + 2));
    }
  });
});

describe('graph functions: query checks', () => {
  const base: AggregateQuery = { series: 's', key: 'k', start: T0, end: T0, fn: 'hopsTo', field: 'cp', values: ['x'], limit: 2, fanOut: 2 };
  const rows: { name: string; query: AggregateQuery; path: string }[] = [
    { name: 'hopsTo without a field', query: { ...base, field: undefined }, path: '/field' },
    { name: 'hopsTo without fanOut', query: { ...base, fanOut: undefined }, path: '/fanOut' },
    { name: 'fanOut 0', query: { ...base, fanOut: 0 }, path: '/fanOut' },
    { name: 'fanOut 65 (above 64)', query: { ...base, fanOut: 65 }, path: '/fanOut' },
    { name: 'fanOut 1.5', query: { ...base, fanOut: 1.5 }, path: '/fanOut' },
    { name: 'hopsTo with limit 0', query: { ...base, limit: 0 }, path: '/limit' },
    { name: 'hopsTo with limit 7 (above 6)', query: { ...base, limit: 7 }, path: '/limit' },
    { name: 'sharedSource without fanOut', query: { ...base, fn: 'sharedSource', fanOut: undefined }, path: '/fanOut' },
  ];
  for (const row of rows) {
    it(`refuses ${row.name} at ${row.path}`, () => {
      const store = createAggregateStore();
      let error: unknown;
      try {
        store.query(row.query);
      } catch (e) {
        error = e;
      }
      expect(isTxmonError(error) && error.code).toBe('VALIDATION_FAILED');
      expect(isTxmonError(error) && error.details.map((d) => d.path)).toEqual([row.path]);
    });
  }

  it('accepts the bounds: fanOut 1 and 64, limit 1 and 6; sharedSource needs no limit', () => {
    const store = createAggregateStore();
    for (const q of [
      { ...base, fanOut: 1, limit: 1 },
      { ...base, fanOut: 64, limit: 6 },
      { ...base, fn: 'sharedSource' as const, limit: undefined },
    ]) {
      expect(store.query(q)).toBe(0);
    }
  });
});
