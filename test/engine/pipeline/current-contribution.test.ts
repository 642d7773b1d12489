import { describe, expect, it } from 'vitest';
import { mergeCurrentContribution } from '../../../src/engine/pipeline/current-contribution.js';
import type { AggregateNeed, SeriesEntry } from '../../../src/index.js';
import { HOUR, T0 } from '../../helpers.js';

describe('mergeCurrentContribution', () => {
  const need = (overrides: Partial<AggregateNeed> = {}): AggregateNeed => ({
    name: 'n',
    series: 'user-sending',
    key: 'alice',
    start: T0 - HOUR,
    end: T0,
    fn: 'count',
    includeCurrent: true,
    ...overrides,
  });
  const entry = (overrides: Partial<SeriesEntry> = {}): SeriesEntry => ({
    series: 'user-sending',
    key: 'alice',
    id: 'tx-1',
    timestamp: T0,
    amount: 500n,
    ...overrides,
  });
  const rows: { name: string; need: AggregateNeed; others: bigint | number | null; current: SeriesEntry[]; expected: bigint | number | null }[] = [
    { name: 'count inside the window adds 1', need: need(), others: 3, current: [entry()], expected: 4 },
    { name: 'includeCurrent false adds nothing', need: need({ includeCurrent: false }), others: 3, current: [entry()], expected: 3 },
    { name: 'an entry exactly at the start is inside', need: need(), others: 0, current: [entry({ timestamp: T0 - HOUR })], expected: 1 },
    { name: 'an entry 1 ms before the start is outside', need: need(), others: 0, current: [entry({ timestamp: T0 - HOUR - 1 })], expected: 0 },
    { name: 'an entry 1 ms after the end is outside', need: need(), others: 0, current: [entry({ timestamp: T0 + 1 })], expected: 0 },
    { name: 'another key is ignored', need: need(), others: 0, current: [entry({ key: 'bob' })], expected: 0 },
    { name: 'another series is ignored', need: need(), others: 0, current: [entry({ series: 'user-receiving' })], expected: 0 },
    { name: 'sum adds the exact amount', need: need({ fn: 'sum' }), others: 10n, current: [entry()], expected: 510n },
    { name: 'sum ignores an entry without amount', need: need({ fn: 'sum' }), others: 10n, current: [entry({ amount: null })], expected: 10n },
    { name: 'amountCount ignores an entry without amount', need: need({ fn: 'amountCount' }), others: 2, current: [entry({ amount: null })], expected: 2 },
    { name: 'min takes a smaller current amount', need: need({ fn: 'min' }), others: 600n, current: [entry()], expected: 500n },
    { name: 'min of an empty window is the current amount', need: need({ fn: 'min' }), others: null, current: [entry()], expected: 500n },
    { name: 'max keeps a larger other amount', need: need({ fn: 'max' }), others: 600n, current: [entry()], expected: 600n },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(mergeCurrentContribution(row.need, row.others, row.current)).toBe(row.expected);
    });
  }

  it('countIn with includeCurrent merges the current entry', () => {
    const need: AggregateNeed = {
      name: 'n',
      series: 'user-sending',
      key: 'alice',
      start: 0,
      end: T0,
      fn: 'countIn',
      field: 'type',
      values: ['TRANSFER'],
      includeCurrent: true,
    };
    const current: SeriesEntry[] = [{ series: 'user-sending', key: 'alice', id: 't', timestamp: T0, amount: 500n, values: { type: 'TRANSFER' } }];
    expect(mergeCurrentContribution(need, 1, current)).toBe(2);
  });
});

describe('edge cases', () => {
  it('a sumIn need with includeCurrent adds the current entry’s amount', () => {
    const need: AggregateNeed = {
      name: 'n',
      series: 'user-sending',
      key: 'alice',
      start: 0,
      end: T0,
      fn: 'sumIn',
      field: 'type',
      values: ['TRANSFER'],
      includeCurrent: true,
    };
    const current: SeriesEntry[] = [{ series: 'user-sending', key: 'alice', id: 't', timestamp: T0, amount: 500n, values: { type: 'TRANSFER' } }];
    expect(mergeCurrentContribution(need, 100n, current)).toBe(600n);
  });
});

describe('mergeCurrentContribution: lastEntries', () => {
  const need: AggregateNeed = {
    name: 'n',
    series: 'user-sending',
    key: 'alice',
    start: 0,
    end: T0,
    fn: 'lastEntries',
    limit: 2,
    excludeId: 'c',
    includeCurrent: true,
  };
  const listed = (id: string, timestamp: number) => ({ id, timestamp, amount: 100n });
  const current = (timestamp: number): SeriesEntry[] => [{ series: 'user-sending', key: 'alice', id: 'c', timestamp, amount: 500n }];
  const rows = [
    {
      name: 'a full list: the current, latest, enters and the oldest drops out',
      others: [listed('a', T0 - 2), listed('b', T0 - 1)],
      at: T0,
      expected: ['b', 'c'],
    },
    { name: 'a list below the limit: the current is added in order', others: [listed('b', T0 - 1)], at: T0 - 2, expected: ['c', 'b'] },
    {
      name: 'a full list newer than the current: it is not among the last',
      others: [listed('a', T0 - 2), listed('b', T0 - 1)],
      at: T0 - 3,
      expected: ['a', 'b'],
    },
    { name: 'an empty list: the current alone', others: [], at: T0, expected: ['c'] },
  ];
  it.each(rows)('$name', ({ others, at, expected }) => {
    const merged = mergeCurrentContribution(need, others, current(at)) as readonly { id: string }[];
    expect(merged.map((e) => e.id)).toEqual(expected);
  });
  it('leaves the list it was given unchanged', () => {
    const others = Object.freeze([Object.freeze(listed('a', T0 - 1))]);
    mergeCurrentContribution(need, others, current(T0));
    expect(others.map((e) => e.id)).toEqual(['a']);
  });
});
