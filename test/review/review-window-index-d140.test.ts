import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { createWindowIndex, type WindowEntry, type WindowIndex } from '../../src/aggregation/window-index.js';
import { computeAggregate, queryIndex, type AggregateFunction, type SeriesEntry } from '../../src/aggregation/aggregate-store.js';
import { isTxmonError } from '../../src/errors.js';

/**
 * Review of D-140 (the window index keeps parallel arrays of plain values: numbers while every
 * amount and prefix sum lies within ±2^52, bigints after; held ids a Set up to 64, then a Map;
 * a one-entry id → position memo). Every answer is compared with `computeAggregate`, the
 * brute-force reference, over a plain model of the entries.
 */

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

const T0 = 1_700_000_000_000;
const L = 2n ** 52n;
/** The largest amount still kept as a number; odd, so sums of a few need more than 53 bits. */
const A = L - 1n;

const FUNCTIONS: readonly AggregateFunction[] = ['count', 'sum', 'amountCount', 'min', 'max', 'distinct', 'latest', 'countIn', 'sumIn', 'lastAmountCount', 'lastMin', 'lastMax'];
const LAST_FUNCTIONS: ReadonlySet<AggregateFunction> = new Set(['lastAmountCount', 'lastMin', 'lastMax']);
const LIMITS: readonly number[] = [0, 1, 3, 63, 64, 65, 130, 100_000];
const IN_VALUES: readonly string[] = ['x', 'y', 'v1', 'v3'];


function sorted(model: Map<string, WindowEntry>): WindowEntry[] {
  return [...model.values()].sort((a, b) => (a.timestamp !== b.timestamp ? a.timestamp - b.timestamp : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Every function (every limit for the `last…` ones, both fields for value functions) against the reference. */
function checkAll(index: WindowIndex, model: Map<string, WindowEntry>, start: number, end: number, excludeId: string | undefined, label = ''): void {
  const reference: SeriesEntry[] = [...model.values()].map((e) => ({ ...e, series: 's', key: 'k' }));
  for (const fn of FUNCTIONS) {
    for (const field of fn === 'distinct' || fn === 'countIn' || fn === 'sumIn' ? ['cp', 'country'] : ['cp']) {
      for (const limit of LAST_FUNCTIONS.has(fn) ? LIMITS : [1]) {
        const q = { series: 's', key: 'k', start, end, fn, field, values: IN_VALUES, limit, ...(excludeId === undefined ? {} : { excludeId }) };
        expect(queryIndex(index, q), `${label} ${fn}(${field}) [${start}, ${end}] excl ${excludeId} limit ${limit}`).toEqual(
          computeAggregate(reference, q),
        );
      }
    }
  }
}

function checkShape(index: WindowIndex, model: Map<string, WindowEntry>, prunedCount: number, retainedFrom: number): void {
  const all = sorted(model);
  expect(index.size).toBe(model.size);
  expect(index.firstTimestamp).toBe(all[0]?.timestamp ?? null);
  expect(index.lastTimestamp).toBe(all[all.length - 1]?.timestamp ?? null);
  expect(index.prunedCount).toBe(prunedCount);
  expect(index.retainedFrom).toBe(retainedFrom);
}

// ---------------------------------------------------------------------------------------------
// Model-based property biased toward the edges of D-140.

type Op =
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
const idArb = fc.oneof(
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

const valueArb = fc.constantFrom('', 'x', 'y', 'v1', 'v3', 'z');
const valuesArb = fc.option(fc.record({ cp: valueArb, country: valueArb }, { requiredKeys: [] }), { nil: undefined, freq: 3 });

function opArb(amountArb: fc.Arbitrary<bigint>): fc.Arbitrary<Op> {
  const amount = fc.option(amountArb, { nil: null, freq: 6 });
  const idOrPick = fc.oneof(idArb, fc.nat());
  return fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('upsert' as const), id: idArb, tick: tickArb, amount, values: valuesArb }) },
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
        values: fc.option(valuesArb, { nil: null }),
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

function runOps(ops: readonly Op[], small = false): void {
  const index = createWindowIndex();
  const model = new Map<string, WindowEntry>();
  let prunedCount = 0;
  let retainedFrom = -Infinity;

  const held = (pick: number): WindowEntry | undefined => {
    const all = sorted(model);
    return all.length === 0 ? undefined : all[pick % all.length];
  };
  const idOf = (id: string | number): string => (typeof id === 'string' ? id : (held(id)?.id ?? 'none'));
  const put = (entry: WindowEntry): void => {
    index.upsert(entry);
    model.set(entry.id, entry);
  };
  /** A query bound: an entry's timestamp, a tick, or ±Infinity. */
  const bound = (pick: number): number => {
    const all = sorted(model);
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
        const tie = sorted(model).filter((e) => e.timestamp === entry.timestamp);
        return (tie[(pick >> 6) % tie.length] as WindowEntry).id;
      }
      default:
        return (pick >> 3) % 2 === 0 ? 'nobody' : `p${(pick >> 4) % 91}`;
    }
  };

  for (const op of ops) {
    switch (op.kind) {
      case 'upsert':
        put(op.values === undefined ? { id: op.id, timestamp: tsOf(op.tick), amount: op.amount } : { id: op.id, timestamp: tsOf(op.tick), amount: op.amount, values: op.values });
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
  expect(index.entries()).toEqual(sorted(model));
  checkAll(index, model, -Infinity, Infinity, undefined, 'final');
}

describe('D-140 review: model-based', () => {
  test.prop([fc.array(opArb(WIDE), { maxLength: 40, size: 'max' })], { numRuns: 100 })(
    'amounts of any size near ±2^52 (both forms, the switch at any moment)',
    (ops) => runOps(ops),
  );

  test.prop([fc.array(opArb(NEAR_IN), { maxLength: 40, size: 'max' })], { numRuns: 100 })(
    'amounts within ±(2^52 − 1) only: the switch happens through prefix sums (appends, inserts, amends, moves, removes, after prunes)',
    (ops) => runOps(ops),
  );

  test.prop([fc.array(opArb(SMALL), { maxLength: 40, size: 'max' })], { numRuns: 50 })('small amounts only: numbers throughout, ids past 64', (ops) => runOps(ops, true));

  // The engine pattern with amounts of ±(2^52 − 1): append (sometimes late), query the window ending
  // at the new entry with and without it, prune (often half the arrays: compaction) — the number
  // form must hold every prefix sum within ±2^52 in whatever frame it keeps them, or switch.
  test.prop([
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
  ], { numRuns: 400 })('append, query, prune with amounts near 2^52: exact through compactions', (steps) => {
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
      const all = sorted(model);
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
    expect(index.entries()).toEqual(sorted(model));
    checkAll(index, model, -Infinity, Infinity, undefined, 'final');
  });
});

// ---------------------------------------------------------------------------------------------
// Examples.

function indexOf(entries: readonly WindowEntry[]): { index: WindowIndex; model: Map<string, WindowEntry> } {
  const index = createWindowIndex();
  const model = new Map<string, WindowEntry>();
  for (const entry of entries) {
    index.upsert(entry);
    model.set(entry.id, entry);
  }
  return { index, model };
}

function prune(index: WindowIndex, model: Map<string, WindowEntry>, horizon: number): void {
  for (const [id, e] of model) if (e.timestamp < horizon) model.delete(id);
  index.pruneBefore(horizon);
}

describe('D-140 review: compaction keeps the number-form prefix sums exact (found by this review, fixed)', () => {
  // The bug this guards against: compaction used to rebase the number-form prefix sums. Prefix sums before the prune: 0, A, A, 0, −A (all within ±2^52). Pruning e0 and e1 (half the
  // arrays) compacts them and rebases the prefix sums on A: 0, −A, −2A. −2A is outside ±2^52, so
  // the number form's premise no longer holds, yet the index stays on numbers: later prefix sums
  // are checked in the rebased frame only (−A, 0, A all pass), and a window over e4..e6 is the
  // difference A − (−2A) = 3A, odd and past 2^53, which a double cannot hold. Now the prefix sums keep
  // their values through compaction (only differences are read), so each stays within ±2^52.
  const history: WindowEntry[] = [
    { id: 'e0', timestamp: T0, amount: A },
    { id: 'e1', timestamp: T0 + 1, amount: null },
    { id: 'e2', timestamp: T0 + 2, amount: -A },
    { id: 'e3', timestamp: T0 + 3, amount: -A },
  ];

  it('a sum over appends after a compaction is exact (was 3A − 1 instead of 3A)', () => {
    const { index, model } = indexOf(history);
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
    const { index, model } = indexOf(history);
    prune(index, model, T0 + 2);
    for (const id of ['e4', 'e5', 'e6', 'e7']) {
      const entry = { id, timestamp: T0 + Number(id.slice(1)), amount: id === 'e7' ? -2n : A };
      index.upsert(entry);
      model.set(id, entry);
    }
    // Without e7 (−2): 3A, as above; e7 at the end is the excluded current transaction.
    expect(index.sum(T0 + 4, T0 + 7, 'e7')).toBe(3n * A);
    expect(index.sum(T0 + 4, T0 + 7)).toBe(3n * A - 2n);
  });

  it('the same after an out-of-order insert (prefixes recomputed by touchFrom in the rebased frame)', () => {
    const { index, model } = indexOf([...history, { id: 'e0b', timestamp: T0 + 0.5, amount: null }, { id: 'e9', timestamp: T0 + 9, amount: 0n }]);
    prune(index, model, T0 + 2);
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

describe('D-140 review: the switch to bigints', () => {
  it('a sum that leaves the exact range only without an excluded entry in the middle, in the number form', () => {
    // Prefix sums 0, −A, 0, A, 0, A, 0: every one within ±2^52 (numbers throughout). Without w, the
    // window y..v sums to 3A (odd, past 2^53): the two exact parts around w (2A and A) must not be
    // added as doubles.
    const { index, model } = indexOf([
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
      const { index, model } = indexOf([
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
    let { index, model } = indexOf(base);
    const b = { id: 'b', timestamp: T0 + 1, amount: A };
    index.upsert(b);
    model.set('b', b);
    checkAll(index, model, T0, T0 + 3, undefined);
    checkAll(index, model, T0, T0 + 3, 'd');
    // A move: b goes to the end; the prefix after a and c is 2A.
    ({ index, model } = indexOf(base));
    const moved = { id: 'b', timestamp: T0 + 4, amount: -A };
    index.upsert(moved);
    model.set('b', moved);
    checkAll(index, model, T0, T0 + 4, undefined);
    checkAll(index, model, T0, T0 + 4, 'b');
    // A remove of b: the same.
    ({ index, model } = indexOf(base));
    expect(index.remove('b')).toBe(true);
    model.delete('b');
    checkAll(index, model, T0, T0 + 3, undefined);
    checkAll(index, model, T0, T0 + 3, 'c');
  });

  it('min/max and lastMin/lastMax across block boundaries, with block summaries computed before the switch', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 300; i++) entries.push({ id: `t${String(i).padStart(3, '0')}`, timestamp: T0 + i, amount: i % 5 === 0 ? null : BigInt((i * 7919) % 1000) - 500n });
    const { index, model } = indexOf(entries);
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
    prune(index, model, T0 + 160);
    checkAll(index, model, T0 + 160, T0 + 299, 't200');
    expect(index.entries()).toEqual(sorted(model));
  });
});

describe('D-140 review: ids', () => {
  it('the 65th id inserted out of order, then lookups of old ids at ties, moves and removes', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 64; i++) entries.push({ id: `i${i}`, timestamp: T0 + Math.floor(i / 4) * 10, amount: BigInt(i) });
    const { index, model } = indexOf(entries);
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
    expect(index.entries()).toEqual(sorted(model));
    // Prune back below 64 ids (the Map stays), re-add a pruned id and a removed one.
    prune(index, model, T0 + 100);
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
    expect(index.entries()).toEqual(sorted(model));
    for (const id of ['i0', 'i63', 'i62', 'i5', 'nope', 'i6']) checkAll(index, model, -Infinity, Infinity, id);
  });

  it('the 65th id added as the move target of nothing: moving a held id does not count twice', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 64; i++) entries.push({ id: `m${i}`, timestamp: T0 + i, amount: 1n });
    const { index, model } = indexOf(entries);
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
    expect(index.entries()).toEqual(sorted(model));
  });

  it('ids that are prefixes of others, at one timestamp', () => {
    const ids = ['b', 'a', 'abc', 'ab', 'b0', 'a0', ''];
    const { index, model } = indexOf(ids.map((id, i) => ({ id, timestamp: T0, amount: BigInt(i + 1) })));
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

describe('D-140 review: the id → position memo', () => {
  it('a lookup, a change, the same lookup; two ids alternating', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 10; i++) entries.push({ id: `e${i}`, timestamp: T0 + i * 10, amount: BigInt(i + 1), values: { cp: `v${i % 2}` } });
    const { index, model } = indexOf(entries);
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
    prune(index, model, T0 + 40);
    checkAll(index, model, T0, T0 + 90, 'e0');
    checkAll(index, model, T0, T0 + 90, 'e5');
  });

  it('a lookup, a prune that drops the entry without compacting, the same lookup', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 10; i++) entries.push({ id: `e${i}`, timestamp: T0 + i, amount: BigInt(i) });
    const { index, model } = indexOf(entries);
    expect(index.get('e1')).toEqual(model.get('e1'));
    expect(index.sum(T0, T0 + 9, 'e1')).toBe(44n);
    // 3 of 10 pruned: no compaction, positions unchanged; e1 is no longer held.
    prune(index, model, T0 + 3);
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
    const { index, model } = indexOf([
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

describe('D-140 review: values created late, cursors after edits', () => {
  it('entries without values, then with; replacements changing values only; long ranges in both forms', () => {
    const entries: WindowEntry[] = [];
    for (let i = 0; i < 120; i++) entries.push({ id: `e${String(i).padStart(3, '0')}`, timestamp: T0 + i, amount: i % 6 === 0 ? null : BigInt(i) });
    const { index, model } = indexOf(entries);
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
    expect(index.entries()).toEqual(sorted(model));
  });
});

describe('D-140 review: entries and get', () => {
  it('return fresh objects with exact amounts in both forms', () => {
    const { index } = indexOf([
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

describe('D-140 review: non-finite timestamps', () => {
  for (const form of ['number', 'bigint'] as const) {
    it(`throw VALIDATION_FAILED and change nothing (${form} form, new id, held id, > 64 ids)`, () => {
      const entries: WindowEntry[] = [];
      for (let i = 0; i < 70; i++) entries.push({ id: `e${i}`, timestamp: T0 + i, amount: form === 'bigint' && i === 3 ? L : BigInt(i) });
      const { index, model } = indexOf(entries);
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
      expect(index.entries()).toEqual(sorted(model));
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
