import { describe, expect, test } from 'vitest';
import { COUNTRY_CODES, CRYPTO_CODES, CURRENCY_CODES, CURRENCY_EXPONENTS, currencyExponent, isCountryCode, isCurrencyCode } from '../../src/domain/codes.js';

describe('COUNTRY_CODES', () => {
  test('holds the 249 ISO codes plus XA–XZ except XX and N/A', () => {
    expect(COUNTRY_CODES.size).toBe(249 + 25 + 1);
    for (const code of COUNTRY_CODES) expect(code).toMatch(/^([A-Z]{2}|N\/A)$/);
  });
});

describe('isCountryCode', () => {
  test.each([
    { name: 'Germany', input: 'DE', expected: true },
    { name: 'United Kingdom (GB, not UK)', input: 'GB', expected: true },
    { name: 'UK is not an ISO code', input: 'UK', expected: false },
    { name: 'Kosovo (user-assigned XK)', input: 'XK', expected: true },
    { name: 'Åland Islands', input: 'AX', expected: true },
    { name: 'not applicable', input: 'N/A', expected: true },
    { name: 'XX is not accepted', input: 'XX', expected: false },
    { name: 'EU is not a country', input: 'EU', expected: false },
    { name: 'lower case', input: 'de', expected: false },
    { name: 'alpha-3', input: 'DEU', expected: false },
    { name: 'empty string', input: '', expected: false },
    { name: 'a number', input: 49, expected: false },
  ])('$name', ({ input, expected }) => {
    expect(isCountryCode(input)).toBe(expected);
  });
});

describe('isCurrencyCode', () => {
  test.each([
    { name: 'euro', input: 'EUR', expected: true },
    { name: 'yen', input: 'JPY', expected: true },
    { name: 'Sierra Leone new leone', input: 'SLE', expected: true },
    { name: 'legacy Croatian kuna', input: 'HRK', expected: true },
    { name: 'offshore yuan (market code)', input: 'CNH', expected: true },
    { name: 'bitcoin', input: 'BTC', expected: true },
    { name: 'tether', input: 'USDT', expected: true },
    { name: 'USD coin', input: 'USDC', expected: true },
    { name: 'ether', input: 'ETH', expected: true },
    { name: 'testing code XTS', input: 'XTS', expected: false },
    { name: 'no-currency code XXX', input: 'XXX', expected: false },
    { name: 'lower case', input: 'eur', expected: false },
    { name: 'unknown', input: 'ABC', expected: false },
    { name: 'not a string', input: null, expected: false },
  ])('$name', ({ input, expected }) => {
    expect(isCurrencyCode(input)).toBe(expected);
  });

  test('crypto codes are currency codes', () => {
    for (const code of CRYPTO_CODES) expect(CURRENCY_CODES.has(code)).toBe(true);
  });
});

describe('currencyExponent', () => {
  test.each([
    { name: 'EUR has 2 digits', input: 'EUR', expected: 2 },
    { name: 'JPY has 0 digits', input: 'JPY', expected: 0 },
    { name: 'KRW has 0 digits', input: 'KRW', expected: 0 },
    { name: 'KWD has 3 digits', input: 'KWD', expected: 3 },
    { name: 'BHD has 3 digits', input: 'BHD', expected: 3 },
    { name: 'CLF has 4 digits', input: 'CLF', expected: 4 },
    { name: 'BTC uses the 8-digit money scale', input: 'BTC', expected: 8 },
    { name: 'ETH is capped at the 8-digit money scale', input: 'ETH', expected: 8 },
    { name: 'unknown code defaults to 2', input: 'ZZZ', expected: 2 },
    { name: 'inherited property names are not exponents', input: 'constructor', expected: 2 },
  ])('$name', ({ input, expected }) => {
    expect(currencyExponent(input)).toBe(expected);
  });

  test('every exponent key is an accepted currency', () => {
    for (const code of Object.keys(CURRENCY_EXPONENTS)) expect(isCurrencyCode(code)).toBe(true);
  });
});
