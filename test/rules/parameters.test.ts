import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { currencyExponent } from '../../src/domain/codes.js';
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
    fc.dictionary(
      fc.constantFrom(...CURRENCIES),
      fc.integer({ min: 0, max: 10_000_000 }).map((n) => n / 100),
      { maxKeys: 3 },
    ),
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
    expect(
      reachesThreshold(
        map,
        toScaled(1e12),
        'GBP',
        provider(() => '0'),
        0,
      ),
    ).toBe(false);
    expect(
      reachesThreshold(
        map,
        toScaled(1e12),
        'GBP',
        provider(() => null),
        0,
      ),
    ).toBe(false);
    expect(
      reachesThreshold(
        deepFreeze({ EUR: 0 }),
        0n,
        'GBP',
        provider(() => '0'),
        0,
      ),
    ).toBe(true);
  });

  const rateText = fc
    .tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 999_999 }))
    .map(([whole, fraction]) => `${whole}.${String(fraction).padStart(6, '0')}`);
  fcTest.prop([
    fc.array(rateText, { minLength: 1, maxLength: 3 }),
    fc.constantFrom('EUR', 'JPY', 'KWD'),
    fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
    fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 1_000_000_000 }).map((n) => n / 1000),
        fc.nat(10),
      ),
      { minLength: 1, maxLength: 20 },
    ),
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

// The cached bound (a frozen map remembers, per source currency and rate, the smallest amount that
// reaches it) against the uncached answer — an unfrozen map is never cached: convert, round,
// compare — and against an independent exact computation from the rate text.

/** A provider whose rate is whatever `current.rate` says at the time of the call. */
function switchableProvider() {
  const current = { rate: '1' as string | null, calls: 0 };
  return {
    current,
    money: {
      rates: {
        rate: () => {
          current.calls++;
          return current.rate;
        },
      },
      baseCurrency: 'USD',
    },
  };
}

/** The uncached answer: an unfrozen map is never cached. */
function direct(
  threshold: number,
  target: string,
  amount: bigint,
  currency: string,
  money: { rates: { rate: (f: string, t: string, at: number) => string | null }; baseCurrency: string },
): boolean {
  const resolved = resolveThreshold({ [target]: threshold }, amount, currency, money, 0);
  return resolved !== null && resolved.amount >= resolved.threshold;
}

/** An independent exact computation from the rate text: rate rounded half-even to 18 decimals, product rounded half-even to 10^-8, then to the minor unit. */
function exact(threshold: number, target: string, amount: bigint, rate: string): boolean {
  const halfEven = (n: bigint, d: bigint) => {
    const neg = n < 0n;
    const a = neg ? -n : n;
    let q = a / d;
    const r = a % d;
    if (2n * r > d || (2n * r === d && q % 2n === 1n)) q += 1n;
    return neg ? -q : q;
  };
  // rate text → numerator / 10^k exactly
  const m = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(rate);
  if (!m) throw new Error(`unparsable rate ${rate}`);
  const digits = `${m[2] ?? ''}${m[3] ?? ''}` || '0';
  let scale = (m[3] ?? '').length - Number(m[4] ?? 0);
  let num = BigInt(digits) * (m[1] === '-' ? -1n : 1n);
  if (scale < 0) {
    num *= 10n ** BigInt(-scale);
    scale = 0;
  }
  const rate18 = scale <= 18 ? num * 10n ** BigInt(18 - scale) : halfEven(num, 10n ** BigInt(scale - 18));
  const converted = halfEven(amount * rate18, 10n ** 18n);
  const exp = currencyExponent(target);
  const unit = exp >= 8 ? 1n : 10n ** BigInt(8 - exp);
  const rounded = halfEven(converted, unit) * unit;
  return rounded >= toScaled(threshold);
}

const rateTextArbitrary = fc.oneof(
  fc.constantFrom(
    '0',
    '0.0',
    '1',
    '0.5',
    '1.5',
    '2.5',
    '0.000000000000000001',
    '0.0000000000000000005',
    '0.0000000000000000015',
    '1e-20',
    '1e-18',
    '5e-19',
    '1E-3',
    '1.23e5',
    '1e20',
    '123456789012345678901234567890',
    '0.00000001',
    '157.220',
    '0.799540',
  ),
  fc.tuple(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.stringMatching(/^[0-9]{0,30}$/)).map(([w, f]) => (f.length > 0 ? `${w}.${f}` : `${w}`)),
  fc.tuple(fc.nat(40), fc.stringMatching(/^[1-9][0-9]{0,20}$/)).map(([zeros, d]) => `0.${'0'.repeat(zeros)}${d}`),
  fc.tuple(fc.integer({ min: 1, max: 999 }), fc.integer({ min: -25, max: 25 })).map(([d, e]) => `${d}e${e}`),
);
const thresholdArbitrary = fc.oneof(
  fc.constant(0),
  fc.constant(1e15),
  fc.integer({ min: 0, max: 100_000_000 }).map((n) => n / 100),
  fc.integer({ min: 0, max: 1_000_000_000 }).map((n) => n / 1000),
  fc.integer({ min: 0, max: 1_000_000_000_000 }),
);
const CAP = 1n << 80n;
const amountArbitrary = fc.oneof(
  fc.bigInt({ min: 0n, max: 10n ** 12n }),
  fc.bigInt({ min: 0n, max: 1n << 82n }),
  fc.integer({ min: -5, max: 5 }).map((d) => CAP + BigInt(d)),
  fc.bigInt({ min: -(10n ** 20n), max: -1n }),
  fc.constantFrom(0n, 1n, 999_999n, 1_000_000n, 1_000_001n, 100_000_000n, 50_000_000n, 150_000_000n),
);
const TARGETS = ['JPY', 'EUR', 'KWD', 'BHD', 'CLF', 'XYZ'];

describe('reachesThreshold with a cached bound per rate (frozen maps), against convert → round → compare', () => {
  fcTest.prop(
    [
      fc.array(rateTextArbitrary, { minLength: 1, maxLength: 3 }),
      fc.constantFrom(...TARGETS),
      thresholdArbitrary,
      fc.array(fc.tuple(fc.nat(5), amountArbitrary, fc.constantFrom('GBP', 'USD', 'CHF')), { minLength: 1, maxLength: 40 }),
    ],
    { numRuns: 1000 },
  )('any sequence of (alternating or repeated) rates, amounts and source currencies: as converted', (rates, target, threshold, calls) => {
    const { current, money } = switchableProvider();
    const frozen = deepFreeze({ [target]: threshold });
    for (const [pick, amount, currency] of calls) {
      // Mostly the same rate several times in a row (the bound is used), sometimes another.
      current.rate = rates[pick % 2 === 0 ? 0 : pick % rates.length] as string;
      const expected = direct(threshold, target, amount, currency, money);
      expect(reachesThreshold(frozen, amount, currency, money, 0)).toBe(expected);
      expect(reachesThreshold(frozen, amount, currency, money, 0)).toBe(expected);
    }
  });

  fcTest.prop([rateTextArbitrary, fc.constantFrom(...TARGETS), thresholdArbitrary], { numRuns: 1000 })(
    'at the exact boundary, one unit either side, and at 2^80 ± 1: as converted and as the exact computation',
    (rate, target, threshold) => {
      const { current, money } = switchableProvider();
      current.rate = rate;
      const frozen = deepFreeze({ [target]: threshold });
      reachesThreshold(frozen, 0n, 'GBP', money, 0);
      reachesThreshold(frozen, 0n, 'GBP', money, 0);
      let lo = -1n;
      let hi = 1n << 90n;
      if (!direct(threshold, target, hi, 'GBP', money)) hi = -1n;
      else {
        while (hi - lo > 1n) {
          const mid = (lo + hi) / 2n;
          if (direct(threshold, target, mid < 0n ? 0n : mid, 'GBP', money)) hi = mid;
          else lo = mid;
        }
      }
      const probes = [0n, 1n, CAP - 1n, CAP, CAP + 1n];
      if (hi >= 0n) probes.push(hi, hi - 1n, hi + 1n, hi * 2n, hi / 2n);
      for (const amount of probes) {
        if (amount < 0n) continue;
        const expected = direct(threshold, target, amount, 'GBP', money);
        expect(reachesThreshold(frozen, amount, 'GBP', money, 0)).toBe(expected);
        expect(exact(threshold, target, amount, rate)).toBe(expected);
      }
    },
  );

  it('more than 64 source currencies on one map (the bounds map is cleared) and interleaved currencies', () => {
    const rates = new Map<string, string>();
    const money = { rates: { rate: (from: string) => rates.get(from) ?? null }, baseCurrency: 'USD' };
    const codes = Array.from({ length: 80 }, (_, i) => `Q${String.fromCharCode(65 + (i % 26))}${String.fromCharCode(65 + Math.floor(i / 26))}`);
    for (const [i, c] of codes.entries()) rates.set(c, `${i + 1}.${String(i * 7919).padStart(5, '0')}`);
    const frozen = deepFreeze({ KWD: 1234.567 });
    for (let round = 0; round < 3; round++) {
      for (const [i, c] of codes.entries()) {
        for (const amount of [0n, 10n ** 10n, 123_456_789_012n / BigInt(i + 1), 10n ** 12n / BigInt(i + 1)]) {
          expect(reachesThreshold(frozen, amount, c, money, 0)).toBe(direct(1234.567, 'KWD', amount, c, money));
        }
      }
    }
    // A rate that changes under a remembered bound.
    rates.set('QAA', '0.001');
    for (const amount of [0n, 10n ** 14n, 123_456_700_000_000n, 123_456_750_000_000n, 10n ** 16n]) {
      expect(reachesThreshold(frozen, amount, 'QAA', money, 0)).toBe(direct(1234.567, 'KWD', amount, 'QAA', money));
      expect(reachesThreshold(frozen, amount, 'QAA', money, 0)).toBe(direct(1234.567, 'KWD', amount, 'QAA', money));
    }
  });

  it('rate "0": only a zero threshold is reached, by every amount (also beyond 2^80)', () => {
    const { current, money } = switchableProvider();
    current.rate = '0';
    const zero = deepFreeze({ EUR: 0 });
    const one = deepFreeze({ JPY: 1 });
    for (let i = 0; i < 3; i++) {
      for (const amount of [0n, 1n, CAP, CAP + 1n, 10n ** 30n]) {
        expect(reachesThreshold(zero, amount, 'GBP', money, 0)).toBe(true);
        expect(reachesThreshold(one, amount, 'GBP', money, 0)).toBe(false);
      }
    }
  });
});
