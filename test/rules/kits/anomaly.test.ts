import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  ANOMALY_BASELINE_DAYS,
  ANOMALY_RECENT_DAYS,
  collectDailyValues,
  computeAnomalyDays,
  evaluateStdDevSpike,
  rationalText,
  spikeEvidence,
  formatMeanAmount,
  formatRational,
  formatStdDev,
  formatStdDevAmount,
  getPreviousDouble,
  getUtcDayStart,
  type Rational,
} from '../../../src/rules/kits/anomaly.js';

const DAY = 86_400_000;
const D0 = Date.UTC(2025, 0, 15);
const int = (n: number): Rational => ({ num: BigInt(n), den: 1n });
const q = (num: number, den: number): Rational => ({ num: BigInt(num), den: BigInt(den) });
const big = (num: bigint): Rational => ({ num, den: 1n });

describe('rationalText', () => {
  it.each([
    { value: q(25, 2), expected: '12.5' },
    { value: q(37, 3), expected: '37/3' },
    { value: q(74, 6), expected: '37/3' },
    { value: int(0), expected: '0' },
    { value: q(1, 40), expected: '0.025' },
    { value: q(450001, 3000), expected: '450001/3000' },
  ])('$expected', ({ value, expected }) => {
    expect(rationalText(value)).toBe(expected);
  });
});

describe('spikeEvidence', () => {
  const days = computeAnomalyDays(Date.UTC(2025, 0, 15, 12));
  const spec = { unit: 'number' as const, evidenceField: 'dailyCount' };
  const spike = (recentMean: Rational, baselineMean: Rational, variance: Rational) =>
    ({ hit: true, recentMean, baselineMean, variance, recentDays: 30, baselineDays: 20 }) as const;
  it.each([
    { name: 'two places when they already separate', recent: q(23, 15), mean: q(1, 2), variance: q(1, 4), value: '1.53', limit: '1.50' },
    { name: 'an irrational σ rounded up: √2 → 1 + 2 × 1.41421…', recent: q(4, 1), mean: int(1), variance: int(2), value: '4.00', limit: '3.83' },
    {
      name: 'a place more while they do not (1.5 + 1/1000 against 1.5)',
      recent: q(1501, 1000),
      mean: q(1, 2),
      variance: q(1, 4),
      value: '1.501',
      limit: '1.500',
    },
    {
      name: 'past 12 places, doubling: a gap of 10^-20 shows at 24',
      recent: { num: 10n ** 20n + 1n, den: 10n ** 20n },
      mean: int(1),
      variance: int(0),
      value: '1.000000000000000000010000',
      limit: '1.000000000000000000000000',
    },
  ])('$name', ({ recent, mean, variance, value, limit }) => {
    const item = spikeEvidence(spike(recent, mean, variance), spec, days, 'EUR') as Record<string, unknown>;
    expect([item.value, item.limit]).toEqual([value, limit]);
    expect('currency' in item).toBe(false);
  });
});

describe('evaluateStdDevSpike', () => {
  // Baseline [1, 3]: mean 2, σ 1, mean + 2σ = 4.
  const rows = [
    { name: 'a recent mean exactly at mean + 2σ does not hit', baseline: [int(1), int(3)], recentSum: int(12), recentDays: 3, expected: false },
    { name: 'a recent mean 1/1000 above it hits', baseline: [int(1), int(3)], recentSum: q(12_003, 1000), recentDays: 3, expected: true },
    { name: 'a recent mean 1/1000 below it does not hit', baseline: [int(1), int(3)], recentSum: q(11_997, 1000), recentDays: 3, expected: false },
    {
      name: 'a recent mean below the baseline mean never hits (d < 0, d² large)',
      baseline: [int(100), int(100), int(100)],
      recentSum: int(0),
      recentDays: 1,
      expected: false,
    },
    { name: 'a constant baseline (σ 0): equal to the mean does not hit', baseline: [int(5), int(5)], recentSum: int(5), recentDays: 1, expected: false },
    {
      name: 'a constant baseline (σ 0): any amount above the mean hits',
      baseline: [int(5), int(5)],
      recentSum: q(5_000_001, 1_000_000),
      recentDays: 1,
      expected: true,
    },
    // Baseline [0, 1/2] (shares): mean 1/4, σ 1/4, mean + 2σ = 3/4.
    { name: 'rational values: exactly 3/4 does not hit', baseline: [int(0), q(1, 2)], recentSum: q(3, 4), recentDays: 1, expected: false },
    { name: 'rational values: 4/5 hits', baseline: [int(0), q(1, 2)], recentSum: q(4, 5), recentDays: 1, expected: true },
    // Amounts of 10^15 in 10^-8 units (beyond doubles): baseline [0, 2·10^23], mean + 2σ = 3·10^23.
    {
      name: 'huge values: exactly at the boundary does not hit',
      baseline: [int(0), big(2n * 10n ** 23n)],
      recentSum: big(3n * 10n ** 23n),
      recentDays: 1,
      expected: false,
    },
    {
      name: 'huge values: one unit above the boundary hits',
      baseline: [int(0), big(2n * 10n ** 23n)],
      recentSum: big(3n * 10n ** 23n + 1n),
      recentDays: 1,
      expected: true,
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(evaluateStdDevSpike(row)?.hit).toBe(row.expected);
    });
  }

  it('is null without baseline or recent values', () => {
    expect(evaluateStdDevSpike({ baseline: [], recentSum: int(1), recentDays: 1 })).toBeNull();
    expect(evaluateStdDevSpike({ baseline: [int(1)], recentSum: int(0), recentDays: 0 })).toBeNull();
  });

  it('returns the exact means and variance', () => {
    const r = evaluateStdDevSpike({ baseline: [int(1), int(3)], recentSum: int(13), recentDays: 3 });
    expect(r).toEqual({ hit: true, recentMean: q(13, 3), baselineMean: int(2), variance: int(1), recentDays: 3, baselineDays: 2 });
  });
});

describe('collectDailyValues', () => {
  const rows = [
    {
      name: 'zero-fill starts at the first day with a value',
      daily: [null, null, int(2), null, int(1), null],
      zeroFill: true,
      values: [int(2), int(0), int(1), int(0)],
      active: 2,
    },
    { name: 'without zero-fill quiet days are left out', daily: [null, int(2), null, int(1)], zeroFill: false, values: [int(2), int(1)], active: 2 },
    { name: 'no value at all gives nothing', daily: [null, null], zeroFill: true, values: [], active: 0 },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(collectDailyValues(row.daily, row.zeroFill)).toEqual({ values: row.values, activeDays: row.active });
    });
  }
});

describe('getUtcDayStart', () => {
  const rows = [
    { name: 'midnight is the start of its own day', t: D0, expected: D0 },
    { name: '1 ms before midnight is the day before', t: D0 - 1, expected: D0 - DAY },
    { name: 'the largest double before midnight is the day before', t: getPreviousDouble(D0), expected: D0 - DAY },
    { name: 'a fractional time within the day', t: D0 + 0.25, expected: D0 },
    { name: 'a time before 1970', t: -1, expected: -DAY },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(getUtcDayStart(row.t)).toBe(row.expected);
    });
  }
});

describe('getPreviousDouble', () => {
  it('is the largest double below its argument', () => {
    for (const x of [D0, 1, 0.5, -3, 1e300]) {
      const p = getPreviousDouble(x);
      expect(p).toBeLessThan(x);
      // Nothing lies strictly between: the midpoint rounds to one of the two.
      expect([p, x]).toContain((p + x) / 2);
    }
    expect(getPreviousDouble(0)).toBe(-Number.MIN_VALUE);
  });
});

describe('computeAnomalyDays', () => {
  it('gives 30 recent and 90 baseline UTC days, contiguous, newest first', () => {
    const t = D0 + 12 * 3_600_000;
    const days = computeAnomalyDays(t);
    expect(days.recentDays).toHaveLength(ANOMALY_RECENT_DAYS);
    expect(days.baselineDays).toHaveLength(ANOMALY_BASELINE_DAYS);
    expect(days.recent).toEqual({ start: D0 - 29 * DAY, end: t });
    expect(days.recentDays[0]).toEqual({ start: D0, end: t });
    const all = [...days.recentDays, ...days.baselineDays];
    for (let i = 1; i < all.length; i++) {
      expect(all[i]?.start).toBe(D0 - i * DAY);
      expect(all[i]?.end).toBe(getPreviousDouble(D0 - (i - 1) * DAY));
    }
  });
});

describe('formatting', () => {
  const rows = [
    { name: 'a rational rounds down to 2 places', value: formatRational(q(2, 3), 2), expected: '0.66' },
    { name: 'a share as a percentage', value: formatRational(q(4, 5), 2, 100n), expected: '80.00' },
    { name: 'a standard deviation rounds down (√2)', value: formatStdDev(int(2), 2), expected: '1.41' },
    { name: 'a zero standard deviation', value: formatStdDev(int(0), 2), expected: '0.00' },
    { name: 'a mean amount in 10^-8 units, to the cent', value: formatMeanAmount(q(15_000_033_333_333, 1), 'EUR'), expected: '150000.33 EUR' },
    { name: 'a standard deviation of amounts (σ = 50.00)', value: formatStdDevAmount(q(2500 * 1e16, 1), 'EUR'), expected: '50.00 EUR' },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(row.value).toBe(row.expected);
    });
  }
});

describe('properties', () => {
  /** mean/variance from deviations, compared as cross-multiplied fractions (an independent formula). */
  function oracle(baseline: [number, number][], recent: [number, number][]): boolean {
    type F = [bigint, bigint];
    const add = (a: F, b: F): F => [a[0] * b[1] + b[0] * a[1], a[1] * b[1]];
    const mul = (a: F, b: F): F => [a[0] * b[0], a[1] * b[1]];
    const neg = (a: F): F => [-a[0], a[1]];
    const div = (a: F, n: number): F => [a[0], a[1] * BigInt(n)];
    const fs = (xs: [number, number][]) => xs.map(([n, d]): F => [BigInt(n), BigInt(d)]);
    const b = fs(baseline);
    const mean = div(b.reduce(add, [0n, 1n]), b.length);
    const variance = div(b.map((x) => mul(add(x, neg(mean)), add(x, neg(mean)))).reduce(add, [0n, 1n]), b.length);
    const diff = add(div(fs(recent).reduce(add, [0n, 1n]), recent.length), neg(mean));
    const sq = mul(diff, diff);
    return diff[0] * diff[1] > 0n && sq[0] * variance[1] > 4n * variance[0] * sq[1];
  }
  const value = fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1, max: 7 }));
  test.prop([fc.array(value, { minLength: 1, maxLength: 12 }), fc.array(value, { minLength: 1, maxLength: 6 })], { numRuns: 500 })(
    'agrees with mean + 2σ computed from deviations',
    (baseline, recent) => {
      const r = evaluateStdDevSpike({
        baseline: baseline.map(([n, d]) => q(n, d)),
        recentSum: recent.reduce<Rational>((acc, [n, d]) => ({ num: acc.num * BigInt(d) + BigInt(n) * acc.den, den: acc.den * BigInt(d) }), int(0)),
        recentDays: recent.length,
      });
      expect(r?.hit).toBe(oracle(baseline, recent));
    },
  );
});

describe('computeAnomalyDays day ranges', () => {
  it('midnight belongs to the new day; the last ms before the recent period is in baseline day 0', () => {
    const midnight = Date.UTC(2025, 0, 15);
    const days = computeAnomalyDays(midnight);
    expect(days.recentDays[0]).toEqual({ start: midnight, end: midnight });
    const firstRecent = midnight - 29 * DAY;
    expect(days.recent.start).toBe(firstRecent);
    const baseline0 = days.baselineDays[0] as { start: number; end: number };
    expect(baseline0.start).toBe(firstRecent - DAY);
    expect(baseline0.end < firstRecent && baseline0.end >= firstRecent - 1).toBe(true);
  });
});
