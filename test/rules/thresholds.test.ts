import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider, toScaled } from '../../src/domain/money.js';
import { reachesThreshold, resolveThreshold } from '../../src/rules/parameters.js';
import { deepFreeze } from '../../src/domain/json.js';

/**
 * `reachesThreshold` is the allocation-free test the hot path runs on every transaction; it must
 * agree with "resolve, then compare" (what a hit is described with) for every amount, currency and
 * thresholds map, frozen (cached) or not.
 */
const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'CHF', 'KWD', 'XXX'];

describe('reachesThreshold', () => {
  const rows = [
    { name: 'exactly at an own-currency threshold', thresholds: { EUR: 10000 }, amount: 10000, currency: 'EUR', expected: true },
    { name: 'one minor unit below', thresholds: { EUR: 10000 }, amount: 9999.99, currency: 'EUR', expected: false },
    { name: 'converted into the first listed currency', thresholds: { EUR: 10000 }, amount: 1_000_000, currency: 'USD', expected: true },
    { name: 'converted and far below', thresholds: { EUR: 10000 }, amount: 1, currency: 'USD', expected: false },
    { name: 'no rate for the currency', thresholds: { EUR: 1 }, amount: 1_000_000, currency: 'XXX', expected: false },
    { name: 'empty map', thresholds: {}, amount: 1_000_000, currency: 'EUR', expected: false },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(reachesThreshold(row.thresholds, toScaled(row.amount), row.currency, money, 0)).toBe(row.expected);
      expect(reachesThreshold(deepFreeze({ ...row.thresholds }), toScaled(row.amount), row.currency, money, 0)).toBe(row.expected);
    });
  }

  fcTest.prop([
    fc.dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100), { maxKeys: 3 }),
    fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100),
    fc.constantFrom(...CURRENCIES),
    fc.boolean(),
  ])('agrees with resolveThreshold for any map, amount and currency', (thresholds, amount, currency, frozen) => {
    const map = frozen ? deepFreeze({ ...thresholds }) : thresholds;
    const scaled = toScaled(amount);
    const resolved = resolveThreshold(map, scaled, currency, money, 0);
    const expected = resolved !== null && resolved.amount >= resolved.threshold;
    expect(reachesThreshold(map, scaled, currency, money, 0)).toBe(expected);
  });
});

describe('reachesThreshold with converting rates', () => {
  /** A provider whose rate for every pair is `rateAt(at)`: several rates over time. */
  const provider = (rateAt: (at: number) => string | null) => ({ rates: { rate: (_f: string, _t: string, at: number) => rateAt(at) }, baseCurrency: 'USD' });

  it('one minor unit either side of the converted boundary', () => {
    // GBP → EUR at exactly 1.25: 8000.00 GBP = 10000.00 EUR reaches {EUR 10000}, 7999.99 GBP does not.
    const m = provider(() => '1.25');
    const map = deepFreeze({ EUR: 10000 });
    expect(reachesThreshold(map, toScaled(8000), 'GBP', m, 0)).toBe(true);
    expect(reachesThreshold(map, toScaled(7999.99), 'GBP', m, 0)).toBe(false);
    // Rounded at the target's minor unit: 7999.996 GBP → 9999.995 EUR rounds half-to-even to 10000.00.
    expect(reachesThreshold(map, toScaled(7999.996), 'GBP', m, 0)).toBe(true);
    expect(reachesThreshold(map, toScaled(7999.995), 'GBP', m, 0)).toBe(false);
  });

  it('a rate that changes over time gives each time its own floor', () => {
    const m = provider((at) => (at < 100 ? '1' : '2'));
    const map = deepFreeze({ EUR: 100 });
    expect(reachesThreshold(map, toScaled(60), 'GBP', m, 0)).toBe(false);
    expect(reachesThreshold(map, toScaled(60), 'GBP', m, 200)).toBe(true);
    expect(reachesThreshold(map, toScaled(60), 'GBP', m, 0)).toBe(false);
  });

  it('a zero rate never reaches a positive threshold, and a missing rate cannot decide', () => {
    const map = deepFreeze({ EUR: 1 });
    expect(reachesThreshold(map, toScaled(1e12), 'GBP', provider(() => '0'), 0)).toBe(false);
    expect(reachesThreshold(map, toScaled(1e12), 'GBP', provider(() => null), 0)).toBe(false);
    expect(reachesThreshold(deepFreeze({ EUR: 0 }), 0n, 'GBP', provider(() => '0'), 0)).toBe(true);
  });

  const rateText = fc
    .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 999_999 }))
    .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(6, '0')}`);
  fcTest.prop([
    fc.array(rateText, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('EUR', 'JPY', 'KWD'),
    fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
    fc.array(fc.tuple(fc.integer({ min: 0, max: 1_000_000_000 }).map((n) => n / 1000), fc.nat(10)), { minLength: 1, maxLength: 20 }),
  ])('agrees with convert-round-compare for any rates, thresholds and amounts', (rates, target, threshold, probes) => {
    const m = provider((at) => rates[at % rates.length] as string);
    const frozen = deepFreeze({ [target]: threshold });
    const plain = { [target]: threshold };
    for (const [amount, at] of probes) {
      const scaled = toScaled(amount);
      const resolved = resolveThreshold(plain, scaled, 'GBP', m, at);
      const expected = resolved !== null && resolved.amount >= resolved.threshold;
      expect(reachesThreshold(frozen, scaled, 'GBP', m, at)).toBe(expected);
      expect(reachesThreshold(plain, scaled, 'GBP', m, at)).toBe(expected);
    }
  });

  // A rate seen twice in a row is decided by a cached bound (the smallest reaching amount): at
  // the bound and one 10^-8 unit below it, in any sub-minor-unit amount, the answer must be the
  // converted comparison's.
  fcTest.prop([
    rateText,
    fc.constantFrom('EUR', 'JPY', 'KWD', 'BHD'),
    fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
    fc.array(fc.bigInt({ min: 0n, max: 10n ** 18n }), { minLength: 1, maxLength: 10 }),
  ])('the cached bound decides exactly like converting, at and around the boundary', (rate, target, threshold, amounts) => {
    const m = provider(() => rate);
    const frozen = deepFreeze({ [target]: threshold });
    const plain = { [target]: threshold };
    const direct = (amount: bigint) => {
      const resolved = resolveThreshold(plain, amount, 'GBP', m, 0);
      return resolved !== null && resolved.amount >= resolved.threshold;
    };
    // Two calls with the same rate: the second computes the bound.
    reachesThreshold(frozen, 0n, 'GBP', m, 0);
    reachesThreshold(frozen, 0n, 'GBP', m, 0);
    // The boundary by bisection over the direct comparison, then its neighbours.
    let lo = 0n;
    let hi = 10n ** 24n;
    if (direct(hi)) {
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n;
        if (direct(mid)) hi = mid;
        else lo = mid;
      }
      if (direct(0n)) hi = 0n;
    }
    for (const amount of [...amounts, hi, hi - 1n, hi + 1n, hi - 100n, hi + 100n]) {
      if (amount < 0n) continue;
      expect(reachesThreshold(frozen, amount, 'GBP', m, 0)).toBe(direct(amount));
    }
  });

  it('a negative rate (a broken provider) is converted every time, never bounded', () => {
    // Not monotonic like a positive rate: a cached bound would turn the second answer around.
    const m = provider(() => '-1');
    const map = deepFreeze({ EUR: 0 });
    const answers = [1, 2, 3].map(() => reachesThreshold(map, toScaled(1), 'GBP', m, 0));
    const resolved = resolveThreshold({ EUR: 0 }, toScaled(1), 'GBP', m, 0);
    const expected = resolved !== null && resolved.amount >= resolved.threshold;
    expect(expected).toBe(false);
    expect(answers).toEqual([expected, expected, expected]);
  });

  it('amounts beyond the cached range and negative amounts are converted, not bounded', () => {
    const m = provider(() => '0.000001');
    const map = deepFreeze({ EUR: 1e12 });
    reachesThreshold(map, 0n, 'GBP', m, 0);
    reachesThreshold(map, 0n, 'GBP', m, 0);
    // 10^18 GBP at 10^-6 is 10^12 EUR: reaches, though far beyond 2^80 scaled units.
    expect(reachesThreshold(map, 10n ** 26n, 'GBP', m, 0)).toBe(true);
    expect(reachesThreshold(map, 10n ** 26n - 10n ** 14n, 'GBP', m, 0)).toBe(false);
    // A negative amount (not a valid transaction amount, but a public function's input): as converted.
    const one = provider(() => '1');
    const zero = deepFreeze({ EUR: 0 });
    reachesThreshold(zero, 0n, 'GBP', one, 0);
    reachesThreshold(zero, 0n, 'GBP', one, 0);
    for (const amount of [-1n, -500_000n, -500_001n, -(10n ** 9n)]) {
      const resolved = resolveThreshold({ EUR: 0 }, amount, 'GBP', one, 0);
      expect(reachesThreshold(zero, amount, 'GBP', one, 0)).toBe(resolved !== null && resolved.amount >= resolved.threshold);
    }
  });
});
