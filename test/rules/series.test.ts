import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { contributionRefsOf, contributionsOf, createFixedRateProvider, paymentIdentifier, SERIES_NAMES } from '../../src/internals.js';
import type { Transaction } from '../../src/internals.js';
import { userEntryValuesOf, type UserSeriesName } from '../../src/rules/series.js';
import { transactionArbitrary } from '../arbitraries/index.js';

describe('paymentIdentifier', () => {
  const rows = [
    {
      name: 'IBAN needs BIC and IBAN',
      details: { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' },
      expected: 'IBAN:COBADEFFXXX|DE89370400440532013000',
    },
    { name: 'IBAN without BIC has none', details: { method: 'IBAN', IBAN: 'DE89370400440532013000' }, expected: undefined },
    { name: 'CARD uses the fingerprint', details: { method: 'CARD', cardFingerprint: 'fp-1', cardLast4Digits: '4242' }, expected: 'CARD:fp-1' },
    { name: 'CARD without fingerprint has none', details: { method: 'CARD', cardLast4Digits: '4242' }, expected: undefined },
    {
      name: 'ACH uses routing and account number',
      details: { method: 'ACH', routingNumber: '021000021', accountNumber: '123' },
      expected: 'ACH:021000021|123',
    },
    { name: 'UPI uses upiID', details: { method: 'UPI', upiID: 'a@upi' }, expected: 'UPI:a@upi' },
    { name: 'WALLET uses walletId', details: { method: 'WALLET', walletId: 'w-1' }, expected: 'WALLET:w-1' },
    {
      name: 'GENERIC_BANK_ACCOUNT prefers bankCode',
      details: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '9', bankCode: 'B', accountType: 'SAVINGS' },
      expected: 'GENERIC_BANK_ACCOUNT:9|B',
    },
    {
      name: 'GENERIC_BANK_ACCOUNT falls back to accountType',
      details: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '9', accountType: 'SAVINGS' },
      expected: 'GENERIC_BANK_ACCOUNT:9|SAVINGS',
    },
    { name: 'SWIFT uses account number and swift code', details: { method: 'SWIFT', accountNumber: '9', swiftCode: 'S' }, expected: 'SWIFT:9|S' },
    {
      name: 'MPESA uses short code and phone',
      details: { method: 'MPESA', businessShortCode: '1', phoneNumber: '+2547', transactionType: 'SalaryPayment' },
      expected: 'MPESA:1|+2547',
    },
    { name: 'CHECK uses the account number', details: { method: 'CHECK', accountNumber: '7' }, expected: 'CHECK:7' },
    { name: 'CASH uses the identifier', details: { method: 'CASH', identifier: 'desk-3' }, expected: 'CASH:desk-3' },
    { name: 'NPP uses payId', details: { method: 'NPP', payId: 'p@x' }, expected: 'NPP:p@x' },
    { name: 'a blank field is missing', details: { method: 'WALLET', walletId: '  ' }, expected: undefined },
    { name: 'no details, no identifier', details: undefined, expected: undefined },
  ];
  for (const row of rows) {
    it(row.name, () => expect(paymentIdentifier(row.details as Transaction['originPaymentDetails'])).toBe(row.expected));
  }
});

describe('contributionsOf and contributionRefsOf', () => {
  it('file a transaction under every series it belongs to, and the refs match the entries', () => {
    const t = {
      type: 'TRANSFER',
      transactionId: 't-1',
      timestamp: 1_700_000_000_000,
      originUserId: 'a',
      destinationUserId: 'b',
      originAmountDetails: { transactionAmount: 200, transactionCurrency: 'EUR', country: 'DE' },
      originPaymentDetails: { method: 'CARD', cardFingerprint: 'fp' },
      destinationPaymentDetails: { method: 'WALLET', walletId: 'w' },
      originDeviceData: { ipAddress: '10.0.0.1' },
      transactionState: 'CREATED',
    } as Transaction;
    const all = new Set(SERIES_NAMES);
    const entries = contributionsOf(t, all, { rates: createFixedRateProvider(), baseCurrency: 'EUR' });
    expect(entries.map((e) => `${e.series}:${e.key}`)).toEqual([
      'user-sending:a',
      'user-receiving:b',
      'user-all:a',
      'user-all:b',
      'user-pair:["a","b"]',
      'payment-origin:CARD:fp',
      'payment-destination:WALLET:w',
      'ip:10.0.0.1',
    ]);
    expect(entries[0]?.values).toMatchObject({
      counterparty: 'b',
      country: 'DE',
      currency: 'EUR',
      state: 'CREATED',
      type: 'TRANSFER',
      round: '1',
      paymentId: 'CARD:fp',
    });
    expect(entries[5]?.values).toEqual({ user: 'a', counterpartyUser: 'b' });
    expect(contributionRefsOf(t, all)).toEqual(entries.map((e) => ({ series: e.series, key: e.key, id: e.id })));
  });
});

describe('properties', () => {
  const money = { rates: createFixedRateProvider(), baseCurrency: 'EUR' };
  const USER_SERIES: readonly UserSeriesName[] = ['user-sending', 'user-receiving', 'user-all'];
  // A one-user pool makes self-transfers, whose user has one user-all entry.
  const transactions = fc.oneof(transactionArbitrary(), transactionArbitrary({ userIds: ['u-solo'] }));
  test.prop([transactions, fc.constantFrom(...USER_SERIES)], { numRuns: 200 })(
    'userEntryValuesOf is the values of the entry contributionsOf files under the user in the series, null for a user without one',
    (t, series) => {
      const entries = contributionsOf(t, new Set([series]), money);
      for (const key of [t.originUserId, t.destinationUserId, 'u-stranger']) {
        if (!key) continue;
        const entry = entries.find((e) => e.key === key);
        expect(userEntryValuesOf(t, series, key)).toEqual(entry === undefined ? null : entry.values);
      }
    },
  );
});
