import { describe, expect, it } from 'vitest';
import { test, fc } from '@fast-check/vitest';
import { DEFAULT_USD_RATES, isCountryCode, isCurrencyCode } from '../../../src/domain/index.js';
import {
  HIGH_RISK_COUNTRIES,
  HOME_CURRENCY,
  REPORTING_THRESHOLD,
  RESIDENCE_COUNTRIES,
  convertAmount,
  drawIban,
  roundUnit,
  unitsPerEur,
} from '../../../src/simulation/generate/geography.js';
import { createRandom } from '../../../src/simulation/generate/random.js';

/** ISO 13616: the IBAN moved four characters left, letters as numbers, is 1 modulo 97. */
function ibanIsValid(iban: string): boolean {
  const moved = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (c) => String(c.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of moved) remainder = (remainder * 10 + Number(digit)) % 97;
  return remainder === 1;
}

describe('drawIban', () => {
  test.prop([fc.nat(), fc.constantFrom('DE', 'FR', 'GB', 'NL', 'IR', 'XX')])('has valid check digits', (seed, country) => {
    expect(ibanIsValid(drawIban(createRandom(seed), country))).toBe(true);
  });
});

describe('the tables', () => {
  it('use codes txmon accepts, currencies its default rates know, and thresholds for every home currency', () => {
    for (const country of [...RESIDENCE_COUNTRIES, ...HIGH_RISK_COUNTRIES]) expect(isCountryCode(country)).toBe(true);
    for (const currency of Object.values(HOME_CURRENCY)) {
      expect(isCurrencyCode(currency)).toBe(true);
      expect(Object.hasOwn(DEFAULT_USD_RATES, currency)).toBe(true);
      expect(REPORTING_THRESHOLD[currency]).toBeGreaterThan(0);
    }
    expect(HIGH_RISK_COUNTRIES).toEqual(['IR', 'KP', 'MM']);
  });

  it('convert at txmon default rates, to cents', () => {
    expect(unitsPerEur('EUR')).toBe(1);
    expect(convertAmount(100, 'EUR', 'EUR')).toBe(100);
    expect(convertAmount(100, 'EUR', 'USD')).toBeCloseTo(100 / 0.96581, 2);
    expect(roundUnit('SEK')).toBe(10);
    expect(roundUnit('EUR')).toBe(1);
  });
});
