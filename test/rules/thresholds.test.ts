import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider, toScaled } from '../../src/domain/money.js';
import { reachesThreshold, resolveThreshold } from '../../src/rules/parameters.js';
import { deepFreeze } from '../../src/rules/registry.js';

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
