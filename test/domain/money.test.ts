import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { convertScaled, createFixedRateProvider, formatMoney, parseDecimal, roundToMinorUnit, scaledToDecimal, toScaled } from '../../src/domain/money.js';

const rates = createFixedRateProvider();

describe('toScaled', () => {
  const rows = [
    { name: 'integer', input: 10000, expected: 1_000_000_000_000n },
    { name: 'two decimals', input: 3333.33, expected: 333_333_000_000n },
    { name: 'one minor unit', input: 0.01, expected: 1_000_000n },
    { name: 'exponent notation', input: 1e-7, expected: 10n },
    { name: 'beyond 8 decimals rounds half to even (down)', input: 0.000000005, expected: 0n },
    { name: 'beyond 8 decimals rounds half to even (up)', input: 0.000000015, expected: 2n },
    { name: 'float noise of 0.1 + 0.2 is rounded away', input: 0.1 + 0.2, expected: 30_000_000n },
    { name: 'large amount', input: 1e15, expected: 100_000_000_000_000_000_000_000n },
  ];
  for (const row of rows) it(row.name, () => expect(toScaled(row.input)).toBe(row.expected));

  it('adds exactly: 0.1 + 0.2 equals 0.3 and 3 × 3333.33 + 0.01 equals 10000', () => {
    expect(toScaled(0.1) + toScaled(0.2)).toBe(toScaled(0.3));
    expect(3n * toScaled(3333.33) + toScaled(0.01)).toBe(toScaled(10000));
  });
});

describe('parseDecimal and scaledToDecimal', () => {
  it('round-trips decimal text', () => {
    expect(scaledToDecimal(parseDecimal('12.5'))).toBe('12.5');
    expect(scaledToDecimal(parseDecimal('-0.00000001'))).toBe('-0.00000001');
    expect(formatMoney(toScaled(10000), 'EUR')).toBe('10000.00 EUR');
  });
});

describe('convertScaled', () => {
  it('is the identity for the same currency and null for an unknown pair', () => {
    expect(convertScaled(123n, 'EUR', 'EUR', rates, 0)).toBe(123n);
    expect(convertScaled(123n, 'EUR', 'XAU', rates, 0)).toBeNull();
  });

  it('converts through USD with the fixed table', () => {
    // 1 USD = 0.965810 EUR on 2025-01-02.
    expect(convertScaled(toScaled(100), 'USD', 'EUR', rates, 0)).toBe(toScaled(96.581));
  });

  fcTest.prop([fc.integer({ min: 0, max: 100_000_000_00 }), fc.constantFrom('EUR', 'GBP', 'JPY', 'CHF', 'SEK')])(
    'a round trip through USD comes back to the same minor unit',
    (cents, currency) => {
      const amount = BigInt(cents) * 1_000_000n; // cents → 10^-8 units
      const there = convertScaled(amount, currency, 'USD', rates, 0)!;
      const back = convertScaled(there, 'USD', currency, rates, 0)!;
      expect(roundToMinorUnit(back, 2)).toBe(amount);
    },
  );
});

describe('roundToMinorUnit', () => {
  const rows = [
    { name: 'cents, just below half', amount: 99_999_999_9n, exponent: 2, expected: 100_000_000_0n },
    { name: 'yen has no minor unit', amount: toScaled(100.5), exponent: 0, expected: toScaled(100) },
    { name: 'yen rounds half to even upward', amount: toScaled(101.5), exponent: 0, expected: toScaled(102) },
    { name: 'exponent ≥ 8 keeps the amount', amount: 123n, exponent: 8, expected: 123n },
  ];
  for (const row of rows) it(row.name, () => expect(roundToMinorUnit(row.amount, row.exponent)).toBe(row.expected));
});

describe('formatMoney', () => {
  // The decimal text of the exact scaled value, padded to at least two fraction digits: the
  // definition, through the bigint path (scaledToDecimal), whatever path formatMoney takes.
  const reference = (value: bigint, currency: string): string => {
    const [whole, fraction = ''] = scaledToDecimal(value).split('.');
    return `${whole}.${fraction.padEnd(Math.max(2, fraction.length), '0')} ${currency}`;
  };
  const LIMIT = BigInt(Number.MAX_SAFE_INTEGER);
  const rows: { name: string; value: bigint; expected: string }[] = [
    { name: 'zero', value: 0n, expected: '0.00 EUR' },
    { name: 'one minor unit', value: 1_000_000n, expected: '0.01 EUR' },
    { name: 'one scaled unit', value: 1n, expected: '0.00000001 EUR' },
    { name: 'minus one scaled unit', value: -1n, expected: '-0.00000001 EUR' },
    { name: 'just below a whole unit', value: 99_999_999n, expected: '0.99999999 EUR' },
    { name: 'a whole unit', value: 100_000_000n, expected: '1.00 EUR' },
    { name: 'negative amount', value: -1_050_000_000n, expected: '-10.50 EUR' },
    { name: 'largest exact double', value: LIMIT, expected: '90071992.54740991 EUR' },
    { name: 'one past it (bigint path)', value: LIMIT + 1n, expected: '90071992.54740992 EUR' },
    { name: 'whole units just below 2^53', value: (LIMIT / 100_000_000n) * 100_000_000n - 1n, expected: '90071991.99999999 EUR' },
    { name: 'most negative exact double', value: -LIMIT, expected: '-90071992.54740991 EUR' },
  ];
  it.each(rows)('$name', ({ value, expected }) => {
    expect(formatMoney(value, 'EUR')).toBe(expected);
    expect(reference(value, 'EUR')).toBe(expected);
  });
  fcTest.prop([
    fc.oneof(
      fc.bigInt({ min: -LIMIT, max: LIMIT }),
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
      fc.bigInt({ min: LIMIT - 10_000n, max: LIMIT + 10_000n }),
      fc.integer({ min: -1e9, max: 1e9 }).map((n) => BigInt(n) * 100_000_000n - 1n),
    ),
  ])('equals the exact decimal text for any amount', (value) => {
    expect(formatMoney(value, 'USD')).toBe(reference(value, 'USD'));
  });
});

describe('formatMoney against scaledToDecimal', () => {
  const reference = (value: bigint, currency: string): string => {
    const [whole, fraction = ''] = scaledToDecimal(value).split('.');
    return `${whole}.${fraction.padEnd(Math.max(2, fraction.length), '0')} ${currency}`;
  };
  const LIMIT = BigInt(Number.MAX_SAFE_INTEGER);
  const UNIT = 100_000_000n;

  fcTest.prop([fc.bigInt({ min: 0n, max: LIMIT / UNIT + 1n }), fc.integer({ min: -3, max: 3 }), fc.boolean()], { numRuns: 2000 })(
    'k·1e8 + d (d in −3..3), both signs, up to and past 2^53',
    (k, d, negative) => {
      const v = k * UNIT + BigInt(d);
      const value = negative ? -v : v;
      expect(formatMoney(value, 'EUR')).toBe(reference(value, 'EUR'));
    },
  );

  it('at the boundaries of a double: 2^53, one unit, zero and its sign', () => {
    for (const value of [
      0n,
      -0n,
      1n,
      -1n,
      UNIT - 1n,
      UNIT,
      UNIT + 1n,
      -UNIT,
      LIMIT,
      -LIMIT,
      LIMIT - 1n,
      LIMIT + 1n,
      -LIMIT - 1n,
      2n ** 53n,
      -(2n ** 53n),
      2n ** 64n,
      (LIMIT / UNIT) * UNIT,
      (LIMIT / UNIT) * UNIT - 1n,
    ]) {
      expect(formatMoney(value, 'JPY')).toBe(reference(value, 'JPY'));
    }
    expect(formatMoney(-0n, 'EUR')).toBe('0.00 EUR');
    expect(formatMoney(-1_000_000n, 'EUR')).toBe('-0.01 EUR');
  });
});

describe('createFixedRateProvider (its table checked)', () => {
  const refused = [
    { name: 'an unknown currency code', table: { USD: '1', EURO: '0.9' }, path: '/EURO', detail: 'format' },
    { name: 'a lower-case code', table: { usd: '1' }, path: '/usd', detail: 'format' },
    { name: 'a zero rate', table: { USD: '1', BTC: '0' }, path: '/BTC', detail: 'range' },
    { name: 'a negative rate', table: { USD: '1', EUR: '-0.9' }, path: '/EUR', detail: 'range' },
    { name: 'a negative number', table: { USD: 1, EUR: -0.9 }, path: '/EUR', detail: 'range' },
    { name: 'NaN', table: { USD: 1, EUR: Number.NaN }, path: '/EUR', detail: 'range' },
    { name: 'Infinity', table: { USD: 1, EUR: Number.POSITIVE_INFINITY }, path: '/EUR', detail: 'range' },
    { name: 'text that is no decimal', table: { USD: '1', EUR: 'abc' }, path: '/EUR', detail: 'range' },
    { name: 'a rate below 10^-8 (kept as 0)', table: { USD: '1', SHIB: '0.000000001' }, path: '/SHIB', detail: 'range' },
    { name: 'a rate of another type', table: { USD: '1', EUR: null }, path: '/EUR', detail: 'range' },
  ];
  it.each(refused)('refuses $name with INVALID_CONFIGURATION naming the entry', ({ table, path, detail }) => {
    let error: unknown;
    try {
      createFixedRateProvider(table as unknown as Record<string, string>);
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: 'INVALID_CONFIGURATION', details: [{ path, code: detail }] });
  });

  it('takes rates as decimal text, exponent notation and numbers, and lists its currencies', () => {
    const provider = createFixedRateProvider({ USD: '1', EUR: 0.5, BTC: '1e-5' });
    expect(provider.rate('USD', 'EUR', 0)).toBe('0.5');
    expect(provider.rate('BTC', 'USD', 0)).toBe('100000');
    expect([...(provider.currencies ?? [])]).toEqual(['USD', 'EUR', 'BTC']);
  });

  it('answers null for a currency outside its table', () => {
    expect(rates.rate('BTC', 'USD', 0)).toBeNull();
    expect(rates.currencies?.has('BTC')).toBe(false);
  });
});
