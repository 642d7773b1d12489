/**
 * Test support for the std-dev anomaly rules: a brute-force, float-free
 * oracle recomputed from the transactions a user sent, history generators, and the tests every
 * anomaly rule runs ({@link describeAnomalyRule}). Not a test file.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, errorOf, testEngine, tx } from '../../helpers.js';
import { getPreviousDouble } from '../../../src/rules/kits/anomaly.js';
import type { AggregateNeed, AnyRuleDefinition } from '../../../src/rules/types.js';

/** 00:00 UTC of T0's day (T0 is 12:00 UTC). */
export const D0 = Date.UTC(2025, 0, 15);

/** A time on the day `daysBack` days before T0's day (0 = today), `offset` ms after its 00:00. */
export function dayAt(daysBack: number, offset = HOUR): number {
  return D0 - daysBack * DAY + offset;
}

/** One transaction alice sent: when, and its amount in euro cents. */
export interface Sent {
  readonly at: number;
  readonly cents: number;
}

/** `count` transactions of `cents` on the day `daysBack` back. */
export function sends(daysBack: number, cents: number, count = 1, offset = HOUR): Sent[] {
  return Array.from({ length: count }, (_, i) => ({ at: dayAt(daysBack, offset + i), cents }));
}

/** An engine keeping sums in EUR (so euro amounts are kept as they are). */
export function anomalyEngine() {
  return testEngine({ baseCurrency: 'EUR' }).engine;
}

/** Sends `past` (alice → bob, in EUR) then the current transaction; returns the current result. */
export async function runHistory(rule: AnyRuleDefinition, past: readonly Sent[], current: Sent) {
  const engine = anomalyEngine();
  await engine.createRuleInstance({ ruleId: rule.id, parameters: {} });
  const money = (cents: number) => ({ transactionAmount: cents / 100, transactionCurrency: 'EUR' });
  for (const p of past) {
    await engine.createTransaction(tx({ timestamp: p.at, originAmountDetails: money(p.cents), destinationAmountDetails: money(p.cents) }));
  }
  return engine.createTransaction(tx({ timestamp: current.at, originAmountDetails: money(current.cents), destinationAmountDetails: money(current.cents) }));
}

// ---------------------------------------------------------------------------------------------
// Exact fractions (the oracle's own, independent of src/rules/kits/anomaly.ts).
// ---------------------------------------------------------------------------------------------

interface Frac {
  n: bigint;
  d: bigint;
}
const abs = (x: bigint) => (x < 0n ? -x : x);
function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b) [a, b] = [b, a % b];
  return a || 1n;
}
function frac(n: bigint, d = 1n): Frac {
  const g = gcd(n, d);
  return d < 0n ? { n: -n / g, d: -d / g } : { n: n / g, d: d / g };
}
const plus = (a: Frac, b: Frac) => frac(a.n * b.d + b.n * a.d, a.d * b.d);
const minus = (a: Frac, b: Frac) => frac(a.n * b.d - b.n * a.d, a.d * b.d);
const times = (a: Frac, b: Frac) => frac(a.n * b.n, a.d * b.d);
const over = (a: Frac, k: number) => frac(a.n, a.d * BigInt(k));
const greater = (a: Frac, b: Frac) => a.n * b.d > b.n * a.d;

/** Which daily value a rule takes. */
export type AnomalyMetric = 'volume' | 'count' | 'average' | 'round';

interface Day {
  count: number;
  cents: bigint;
  round: number;
}

/**
 * The rule's decision recomputed from scratch from the past transactions and the current one: per UTC day (by comparing timestamps with day
 * boundaries from `Date.UTC`) of the transactions at or before `now`, the baseline (days 30–119
 * back) and recent (days 0–29) daily values, then mean, variance (Σ(x − mean)² / n) and
 * `recentMean − baselineMean > 0 ∧ (recentMean − baselineMean)² > 4 · variance`.
 */
export function expectedSpike(metric: AnomalyMetric, past: readonly Sent[], current: Sent): boolean {
  return spikeStatistics(metric, past, current)?.hit ?? false;
}

/** The oracle's statistics of a decision (means and variance in cents, counts or shares 0..1). */
export interface SpikeStatistics {
  readonly hit: boolean;
  readonly recentMean: Frac;
  readonly baselineMean: Frac;
  readonly variance: Frac;
  readonly recentDays: number;
  readonly baselineDays: number;
}

/** {@link expectedSpike}'s computation, with the statistics; `null` with too few baseline days or no recent value. */
export function spikeStatistics(metric: AnomalyMetric, past: readonly Sent[], current: Sent): SpikeStatistics | null {
  const sent = [...past, current];
  const now = current.at;
  const date = new Date(now);
  const today = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  const days: Day[] = Array.from({ length: 120 }, () => ({ count: 0, cents: 0n, round: 0 }));
  for (const s of sent) {
    if (s.at > now) continue;
    for (let j = 0; j < 120; j++) {
      const start = today - j * DAY;
      if (s.at >= start && s.at < start + DAY) {
        const day = days[j] as Day;
        day.count += 1;
        day.cents += BigInt(s.cents);
        if (s.cents !== 0 && s.cents % 10_000 === 0) day.round += 1;
      }
    }
  }
  const value = (day: Day): Frac | null => {
    switch (metric) {
      case 'volume':
        return day.cents > 0n ? frac(day.cents) : null;
      case 'count':
        return day.count > 0 ? frac(BigInt(day.count)) : null;
      case 'average':
        return day.count > 0 ? frac(day.cents, BigInt(day.count)) : null;
      case 'round':
        return day.count > 0 ? frac(BigInt(day.round), BigInt(day.count)) : null;
    }
  };
  const zeroFill = metric === 'volume' || metric === 'count';
  // Baseline, oldest (119) to newest (30).
  const baseline: Frac[] = [];
  let active = 0;
  for (let j = 119; j >= 30; j--) {
    const v = value(days[j] as Day);
    if (v) {
      baseline.push(v);
      active += 1;
    } else if (zeroFill && active > 0) {
      baseline.push(frac(0n));
    }
  }
  if (active < 10) return null;
  const recent: Frac[] = [];
  for (let j = 0; j < 30; j++) {
    const v = value(days[j] as Day);
    if (v) recent.push(v);
    else if (zeroFill) recent.push(frac(0n));
  }
  if (recent.length === 0) return null;
  const mean = (xs: Frac[]) => over(xs.reduce(plus, frac(0n)), xs.length);
  const baselineMean = mean(baseline);
  const variance = over(
    baseline.reduce((acc, x) => plus(acc, times(minus(x, baselineMean), minus(x, baselineMean))), frac(0n)),
    baseline.length,
  );
  const recentMean = mean(recent);
  const difference = minus(recentMean, baselineMean);
  const hit = difference.n > 0n && greater(times(difference, difference), times(frac(4n), variance));
  return { hit, recentMean, baselineMean, variance, recentDays: recent.length, baselineDays: baseline.length };
}

/** Decimal text (`"-12.50"`) or `p/q` as a fraction. */
function parseFrac(text: string): Frac {
  if (text.includes('/')) {
    const [n, d] = text.split('/');
    return frac(BigInt(n as string), BigInt(d as string));
  }
  const negative = text.startsWith('-');
  const [whole, fraction = ''] = text.replace('-', '').split('.');
  const value = frac(BigInt(`${whole}${fraction}`), 10n ** BigInt(fraction.length));
  return negative ? frac(-value.n, value.d) : value;
}

/**
 * Checks a spike's evidence item against the oracle's statistics: the exact means and variance
 * (in whole euros, counts or percentages), `value` the recent mean rounded down and `limit` the
 * baseline mean + 2σ rounded up at the places they show, `value > limit`, the periods and counts.
 */
export function expectSpikeEvidence(metric: AnomalyMetric, item: Record<string, unknown>, stats: SpikeStatistics, current: Sent): void {
  // The oracle's cents to whole euros; shares to percentages.
  const unit = metric === 'volume' || metric === 'average' ? frac(1n, 100n) : metric === 'round' ? frac(100n) : frac(1n);
  const recent = times(stats.recentMean, unit);
  const mean = times(stats.baselineMean, unit);
  const variance = times(stats.variance, times(unit, unit));
  expect(parseFrac(item.recentMean as string)).toEqual(recent);
  expect(parseFrac(item.baselineMean as string)).toEqual(mean);
  expect(parseFrac(item.baselineVariance as string)).toEqual(variance);
  const decimals = ((item.value as string).split('.')[1] ?? '').length;
  expect(((item.limit as string).split('.')[1] ?? '').length).toBe(decimals);
  expect(decimals).toBeGreaterThanOrEqual(2);
  const step = frac(1n, 10n ** BigInt(decimals));
  const value = parseFrac(item.value as string);
  const limit = parseFrac(item.limit as string);
  // value ≤ recent mean < value + step.
  expect(greater(value, recent)).toBe(false);
  expect(greater(plus(value, step), recent)).toBe(true);
  // limit ≥ mean + 2σ > limit − step: x ≥ mean + 2σ ⇔ x − mean ≥ 0 ∧ (x − mean)² ≥ 4·variance.
  const atLeast = (x: Frac) => {
    const gap = minus(x, mean);
    return gap.n >= 0n && !greater(times(frac(4n), variance), times(gap, gap));
  };
  expect(atLeast(limit)).toBe(true);
  expect(atLeast(minus(limit, step))).toBe(false);
  expect(greater(value, limit)).toBe(true);
  expect(item).toMatchObject({ direction: 'ORIGIN', kind: 'stdDevSpike', comparison: '>', recentDays: stats.recentDays, referenceDays: stats.baselineDays });
  expect('currency' in item).toBe(metric === 'volume' || metric === 'average');
  const date = new Date(current.at);
  const today = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  expect(item.window).toEqual({ start: today - 29 * DAY, end: current.at, units: 30, granularity: 'day', rolling: false });
  const reference = item.referenceWindow as { start: number; end: number };
  expect(reference).toMatchObject({ start: today - 119 * DAY, units: 90, granularity: 'day', rolling: false });
  // The last baseline day ends just before the recent period starts (the largest double below it).
  expect(reference.end < today - 29 * DAY && reference.end > today - 29 * DAY - 1).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// Generators.
// ---------------------------------------------------------------------------------------------

/** Offsets within a day, biased to the edges (00:00, 1 ms and 0.5 ms before midnight). */
const offsetArb = fc.oneof(fc.constantFrom(0, DAY - 1, DAY - 0.5, 1, 12 * HOUR), fc.integer({ min: 0, max: DAY - 1 }));
/** Amounts in cents: round (multiples of 100 EUR), not, tiny, zero. */
const centsArb = fc.oneof(fc.constantFrom(10_000, 20_000, 30_000, 100_000, 9_999, 15_000, 1, 0), fc.integer({ min: 1, max: 500_000 }));

/**
 * A history around the 10-day minimum: 8–14 active baseline days among the 40 most recent baseline
 * days with 1–3 transactions each — or, half the time, consecutive days with one non-round
 * transaction each (a low spread, so spikes happen) — sometimes one more near the 120-day edge;
 * 0–14 recent bursts of 1–8 transactions with amounts scaled up or not; the current transaction
 * today.
 */
export const historyArb = fc
  .record({
    baselineDays: fc.uniqueArray(fc.integer({ min: 30, max: 69 }), { minLength: 8, maxLength: 14 }),
    regular: fc.boolean(),
    farDay: fc.option(fc.constantFrom(118, 119, 120), { nil: undefined }),
    perDay: fc.array(fc.tuple(fc.integer({ min: 1, max: 3 }), centsArb, offsetArb), { minLength: 14, maxLength: 14 }),
    recent: fc.array(fc.tuple(fc.integer({ min: 0, max: 29 }), centsArb, offsetArb, fc.constantFrom(1, 2, 3, 10), fc.integer({ min: 1, max: 8 })), {
      maxLength: 14,
    }),
    current: fc.tuple(centsArb, fc.oneof(fc.constant(12 * HOUR), offsetArb)),
  })
  .map(({ baselineDays, regular, farDay, perDay, recent, current }) => {
    const past: Sent[] = [];
    const active = regular ? baselineDays.map((_, i) => 30 + i) : baselineDays;
    const days = farDay === undefined ? active : [...active, farDay];
    days.forEach((d, i) => {
      const [many, cents, offset] = perDay[i % perDay.length] as [number, number, number];
      const count = regular ? 1 : many;
      // Regular days are never round (a zero spread of round shares).
      for (let k = 0; k < count; k++) past.push({ at: dayAt(d, Math.min(offset + k, DAY - 0.5)), cents: regular ? 1_501 + i : cents + k * 100 });
    });
    for (const [d, cents, offset, factor, repeat] of recent) {
      for (let k = 0; k < repeat; k++) past.push({ at: dayAt(d, Math.min(offset + k, DAY - 0.5)), cents: cents * factor });
    }
    return { past, current: { at: dayAt(0, current[1]), cents: current[0] } };
  });

// ---------------------------------------------------------------------------------------------
// The tests every anomaly rule runs.
// ---------------------------------------------------------------------------------------------

/** A row of an anomaly rule's boundary table: what alice sent before, the current transaction, the outcome. */
export interface AnomalyRow {
  readonly name: string;
  readonly past: readonly Sent[];
  /** The current transaction; default the case's `now`. */
  readonly now?: Sent;
  readonly hit: boolean;
}

/** What sets one anomaly rule's tests apart (see {@link describeAnomalyRule}). */
export interface AnomalyRuleCase {
  readonly rule: AnyRuleDefinition;
  /** The daily value the oracle recomputes. */
  readonly metric: AnomalyMetric;
  /** The current transaction of the rows that name none. */
  readonly now?: Sent;
  readonly rows: readonly AnomalyRow[];
  /** A hit and the description it renders. */
  readonly description: {
    readonly name: string;
    readonly past: readonly Sent[];
    readonly now: Sent;
    readonly text: string;
    /** The hit's evidence item (its rounded value and limit and exact statistics). */
    readonly evidence: Readonly<Record<string, unknown>>;
  };
  /** The needs of a transaction with a sender: how many, and the set of `signature`s they show. */
  readonly plan: { readonly name: string; readonly count: number; readonly signature: (need: AggregateNeed) => string; readonly signatures: readonly string[] };
  /** A parameter the rule refuses (it takes none). */
  readonly unknownParameter: { readonly name: string; readonly value: unknown };
  /** This rule's own tests, run in its block after the description. */
  readonly more?: () => void;
}

/**
 * The tests of one anomaly rule, through the engine: its boundary table (each row also checked
 * against the oracle), its description, its needs, that it takes no parameters, and the property
 * that it hits exactly when the oracle says so.
 */
export function describeAnomalyRule(c: AnomalyRuleCase): void {
  const { rule } = c;
  describe(`${rule.id} ${rule.name}`, () => {
    for (const row of c.rows) {
      it(row.name, async () => {
        const now = (row.now ?? c.now) as Sent;
        const r = await runHistory(rule, row.past, now);
        expect(r.hitRules[0]?.ruleHitMeta?.hitDirections ?? []).toEqual(row.hit ? ['ORIGIN'] : []);
        expect(expectedSpike(c.metric, row.past, now)).toBe(row.hit);
      });
    }

    it(c.description.name, async () => {
      const r = await runHistory(rule, c.description.past, c.description.now);
      expect(r.hitRules[0]?.ruleDescription).toBe(c.description.text);
      const today = D0 + Math.floor((c.description.now.at - D0) / DAY) * DAY;
      expect(r.hitRules[0]?.ruleHitMeta?.evidence).toEqual([
        {
          direction: 'ORIGIN',
          kind: 'stdDevSpike',
          comparison: '>',
          ...c.description.evidence,
          window: { start: today - 29 * DAY, end: c.description.now.at, units: 30, granularity: 'day', rolling: false },
          referenceWindow: { start: today - 119 * DAY, end: getPreviousDouble(today - 29 * DAY), units: 90, granularity: 'day', rolling: false },
        },
      ]);
    });

    c.more?.();

    it(c.plan.name, () => {
      const needs = rule.aggregates?.({ transaction: tx({ timestamp: T0 }) as never, parameters: {} }) ?? [];
      expect(needs).toHaveLength(c.plan.count);
      expect(new Set(needs.map(c.plan.signature))).toEqual(new Set(c.plan.signatures));
      expect(rule.aggregates?.({ transaction: tx({ timestamp: T0, originUserId: undefined }) as never, parameters: {} })).toEqual([]);
    });

    it('has no parameters', async () => {
      expect(rule.defaultParameters).toEqual({});
      const { name, value } = c.unknownParameter;
      const e = await errorOf(() => anomalyEngine().createRuleInstance({ ruleId: rule.id, parameters: { [name]: value } }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(`/parameters/${name}`);
    });
  });

  describe('properties', () => {
    test.prop([historyArb], { numRuns: 40 })(
      'hits exactly when a brute-force exact recomputation from the sent transactions says so, with its statistics as evidence',
      async ({ past, current }) => {
        const r = await runHistory(rule, past, current);
        const stats = spikeStatistics(c.metric, past, current);
        expect(r.hitRules.length > 0).toBe(stats?.hit ?? false);
        if (stats?.hit) {
          const evidence = r.hitRules[0]?.ruleHitMeta?.evidence ?? [];
          expect(evidence).toHaveLength(1);
          expectSpikeEvidence(c.metric, evidence[0] as Record<string, unknown>, stats, current);
        }
      },
    );

    it('the generator yields both outcomes', () => {
      const outcomes = fc.sample(historyArb, { numRuns: 300, seed: 1 }).map((h) => expectedSpike(c.metric, h.past, h.current));
      expect(outcomes).toContain(true);
      expect(outcomes).toContain(false);
    });
  });
}
