/**
 * Thresholds, amounts and money for the tests that compare a threshold rule with
 * a resolve-then-compare reference. Not a test file.
 */
import { fc } from '@fast-check/vitest';
import { createFixedRateProvider } from '../../src/domain/money.js';

export const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'KWD', 'XXX'] as const;
export const thresholdsArb = fc.dictionary(
  fc.constantFrom(...CURRENCIES),
  fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100),
  { maxKeys: 3 },
);
