import { describe, expect, test } from 'vitest';
import type { TSchema } from '@sinclair/typebox';
import {
  AchDetailsSchema,
  BusinessUserSchema,
  CardDetailsSchema,
  CashDetailsSchema,
  CheckDetailsSchema,
  CommentRequestSchema,
  ConsumerUserSchema,
  DeviceDataSchema,
  GenericBankAccountDetailsSchema,
  IbanDetailsSchema,
  MpesaDetailsSchema,
  NppDetailsSchema,
  PAYMENT_DETAILS_METHODS,
  PAYMENT_METHODS,
  PaymentDetailsSchema,
  PresignedUrlRequestSchema,
  RiskLevelRecordSchema,
  RuleInstanceRequestSchema,
  SCHEMA_LIMITS,
  SwiftDetailsSchema,
  TransactionEventSchema,
  TransactionSchema,
  TransactionUpdatableSchema,
  UpiDetailsSchema,
  WalletDetailsSchema,
  RuleActionSchema,
} from '../../src/domain/index.js';
import { isTxmonError, type ErrorDetail } from '../../src/errors.js';
import { createValidator } from '../../src/validation/index.js';

/** Runs `validate` and returns the error details (`[]` when valid). Fails on any non-Txmon error. */
function detailsOf(schema: TSchema, input: unknown): readonly ErrorDetail[] {
  const validate = createValidator(schema);
  try {
    validate(input);
    return [];
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.status).toBe(400);
    return error.details;
  }
}

/** Expected `{ path, code }` pairs of the details. */
function pairsOf(schema: TSchema, input: unknown): { path: string; code: string }[] {
  return detailsOf(schema, input).map(({ path, code }) => ({ path, code }));
}

const { MIN_TIMESTAMP_MS: MIN_TS, MAX_TIMESTAMP_MS: MAX_TS } = SCHEMA_LIMITS;
const TS = 1_700_000_000_000;
const tx = { type: 'TRANSFER', transactionId: 'tx-1', timestamp: TS };
const long = (n: number) => 'x'.repeat(n);

interface Row {
  readonly name: string;
  readonly input: unknown;
  readonly expected: { path: string; code: string }[];
}

describe('TransactionSchema', () => {
  const rows: Row[] = [
    { name: 'minimal transaction', input: tx, expected: [] },
    { name: 'timestamp exactly at the lower bound', input: { ...tx, timestamp: MIN_TS }, expected: [] },
    { name: 'timestamp exactly at the upper bound', input: { ...tx, timestamp: MAX_TS }, expected: [] },
    { name: 'non-integer timestamp inside the range', input: { ...tx, timestamp: TS + 0.25 }, expected: [] },
    { name: 'timestamp 1 ms below the lower bound', input: { ...tx, timestamp: MIN_TS - 1 }, expected: [{ path: '/timestamp', code: 'minimum' }] },
    { name: 'timestamp 0.5 ms below the lower bound', input: { ...tx, timestamp: MIN_TS - 0.5 }, expected: [{ path: '/timestamp', code: 'minimum' }] },
    { name: 'timestamp 1 ms above the upper bound', input: { ...tx, timestamp: MAX_TS + 1 }, expected: [{ path: '/timestamp', code: 'maximum' }] },
    { name: 'timestamp 0.5 ms above the upper bound', input: { ...tx, timestamp: MAX_TS + 0.5 }, expected: [{ path: '/timestamp', code: 'maximum' }] },
    { name: 'timestamp as a string', input: { ...tx, timestamp: String(TS) }, expected: [{ path: '/timestamp', code: 'type' }] },
    { name: 'empty transactionId', input: { ...tx, transactionId: '' }, expected: [{ path: '/transactionId', code: 'minLength' }] },
    { name: 'transactionId at 256 characters', input: { ...tx, transactionId: long(256) }, expected: [] },
    { name: 'transactionId at 257 characters', input: { ...tx, transactionId: long(257) }, expected: [{ path: '/transactionId', code: 'maxLength' }] },
    { name: 'type at 64 characters', input: { ...tx, type: long(64) }, expected: [] },
    { name: 'type at 65 characters', input: { ...tx, type: long(65) }, expected: [{ path: '/type', code: 'maxLength' }] },
    { name: 'empty type', input: { ...tx, type: '' }, expected: [{ path: '/type', code: 'minLength' }] },
    {
      name: 'all three required fields missing',
      input: {},
      expected: [
        { path: '/type', code: 'required' },
        { path: '/transactionId', code: 'required' },
        { path: '/timestamp', code: 'required' },
      ],
    },
    { name: 'body is an array', input: [tx], expected: [{ path: '', code: 'type' }] },
    { name: 'unknown transactionState', input: { ...tx, transactionState: 'DONE' }, expected: [{ path: '/transactionState', code: 'enum' }] },
    { name: 'every transactionState value', input: { ...tx, transactionState: 'REVERSED' }, expected: [] },
    { name: 'empty originUserId', input: { ...tx, originUserId: '' }, expected: [{ path: '/originUserId', code: 'minLength' }] },
    {
      name: 'amount details with country',
      input: { ...tx, originAmountDetails: { transactionAmount: 10.5, transactionCurrency: 'EUR', country: 'DE' } },
      expected: [],
    },
    {
      name: 'zero amount and crypto currency',
      input: { ...tx, originAmountDetails: { transactionAmount: 0, transactionCurrency: 'USDT' } },
      expected: [],
    },
    {
      name: 'amount at the maximum',
      input: { ...tx, originAmountDetails: { transactionAmount: 1e15, transactionCurrency: 'JPY' } },
      expected: [],
    },
    {
      name: 'negative amount, lower-case currency, unknown country',
      input: { ...tx, destinationAmountDetails: { transactionAmount: -0.01, transactionCurrency: 'eur', country: 'ZZ' } },
      expected: [
        { path: '/destinationAmountDetails/transactionAmount', code: 'minimum' },
        { path: '/destinationAmountDetails/transactionCurrency', code: 'format' },
        { path: '/destinationAmountDetails/country', code: 'format' },
      ],
    },
    {
      name: 'amount above the maximum',
      input: { ...tx, originAmountDetails: { transactionAmount: 1e15 + 1, transactionCurrency: 'USD' } },
      expected: [{ path: '/originAmountDetails/transactionAmount', code: 'maximum' }],
    },
    {
      name: 'amount details without currency',
      input: { ...tx, originAmountDetails: { transactionAmount: 1 } },
      expected: [{ path: '/originAmountDetails/transactionCurrency', code: 'required' }],
    },
    { name: 'reference at 4096 characters', input: { ...tx, reference: long(4096) }, expected: [] },
    { name: 'reference at 4097 characters', input: { ...tx, reference: long(4097) }, expected: [{ path: '/reference', code: 'maxLength' }] },
    {
      name: '100 related transaction ids',
      input: { ...tx, relatedTransactionIds: Array.from({ length: 100 }, (_, i) => `t${i}`) },
      expected: [],
    },
    {
      name: '101 related transaction ids',
      input: { ...tx, relatedTransactionIds: Array.from({ length: 101 }, (_, i) => `t${i}`) },
      expected: [{ path: '/relatedTransactionIds', code: 'maxItems' }],
    },
    {
      name: '101 tags',
      input: { ...tx, tags: Array.from({ length: 101 }, (_, i) => ({ key: `k${i}`, value: 'v' })) },
      expected: [{ path: '/tags', code: 'maxItems' }],
    },
    {
      name: 'tag without value and with an empty key',
      input: { ...tx, tags: [{ key: '' }] },
      expected: [
        { path: '/tags/0/value', code: 'required' },
        { path: '/tags/0/key', code: 'minLength' },
      ],
    },
    {
      name: 'device data at the coordinate bounds',
      input: { ...tx, originDeviceData: { deviceLatitude: -90, deviceLongitude: 180, ipCountry: 'XK', vpnUsed: false } },
      expected: [],
    },
    {
      name: 'device data out of range',
      input: { ...tx, destinationDeviceData: { deviceLatitude: 90.1, deviceLongitude: -180.5, batteryLevel: 101 } },
      expected: [
        { path: '/destinationDeviceData/batteryLevel', code: 'maximum' },
        { path: '/destinationDeviceData/deviceLatitude', code: 'maximum' },
        { path: '/destinationDeviceData/deviceLongitude', code: 'minimum' },
      ],
    },
    {
      name: 'metadata and corporateEntity must be objects',
      input: { ...tx, metadata: [1], corporateEntity: 'acme' },
      expected: [
        { path: '/corporateEntity', code: 'type' },
        { path: '/metadata', code: 'type' },
      ],
    },
    { name: 'external link must not be empty', input: { ...tx, externalLinks: [''] }, expected: [{ path: '/externalLinks/0', code: 'minLength' }] },
    {
      name: 'unknown payment method gives one detail at method',
      input: { ...tx, originPaymentDetails: { method: 'PAYPAL', email: 'a@b.c' } },
      expected: [{ path: '/originPaymentDetails/method', code: 'enum' }],
    },
    {
      name: 'payment details without method gives one required detail',
      input: { ...tx, destinationPaymentDetails: { IBAN: 'DE89370400440532013000' } },
      expected: [{ path: '/destinationPaymentDetails/method', code: 'required' }],
    },
    {
      name: 'payment method of the wrong type',
      input: { ...tx, originPaymentDetails: { method: 7 } },
      expected: [{ path: '/originPaymentDetails/method', code: 'type' }],
    },
    {
      name: 'payment details that are not an object',
      input: { ...tx, originPaymentDetails: 'CARD' },
      expected: [{ path: '/originPaymentDetails', code: 'type' }],
    },
    {
      name: 'payment details that are null',
      input: { ...tx, destinationPaymentDetails: null },
      expected: [{ path: '/destinationPaymentDetails', code: 'type' }],
    },
    {
      name: 'errors of the selected payment branch only',
      input: { ...tx, originPaymentDetails: { method: 'CARD', cardIssuedCountry: 'XX', '3dsDone': 'yes' } },
      expected: [
        { path: '/originPaymentDetails/cardIssuedCountry', code: 'format' },
        { path: '/originPaymentDetails/3dsDone', code: 'type' },
      ],
    },
  ];

  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(TransactionSchema, input)).toEqual(expected);
  });

  test('keeps unknown fields at the top level and in nested known objects', () => {
    const input = {
      ...tx,
      customerSegment: 'gold',
      originAmountDetails: { transactionAmount: 1, transactionCurrency: 'GBP', fxRate: 1.2 },
      originPaymentDetails: { method: 'IBAN', IBAN: 'GB33BUKB20201555555555', BIC: 'BUKBGB22', sortCode: '20-20-15' },
    };
    const snapshot = structuredClone(input);
    const result = createValidator(TransactionSchema)(input);
    expect(result).toBe(input);
    expect(result).toEqual(snapshot);
  });

  test('accepts the JSON wire names IBAN, BIC, 3dsDone, MCC and upiID', () => {
    const input = {
      ...tx,
      originPaymentDetails: {
        method: 'CARD',
        '3dsDone': true,
        cardLast4Digits: '4242',
        cardFirst6Digits: '424242',
        merchantDetails: { MCC: '5411', country: 'US' },
      },
      destinationPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' },
    };
    expect(pairsOf(TransactionSchema, input)).toEqual([]);
    expect(pairsOf(TransactionSchema, { ...tx, originPaymentDetails: { method: 'UPI', upiID: 'name@bank' } })).toEqual([]);
  });

  test('messages name the constraint, never the value', () => {
    const secret = 'SECRET-VALUE-123';
    const details = detailsOf(TransactionSchema, {
      ...tx,
      transactionState: secret,
      originPaymentDetails: { method: secret },
      originAmountDetails: { transactionAmount: 1, transactionCurrency: secret },
    });
    expect(details.length).toBeGreaterThan(0);
    for (const detail of details) expect(detail.message).not.toContain(secret);
  });
});

describe('PaymentDetailsSchema', () => {
  const valid: { name: string; input: Record<string, unknown> }[] = [
    {
      name: 'CARD with every typed field',
      input: {
        method: 'CARD',
        counterpartyType: 'INDIVIDUAL',
        cardFingerprint: 'fp-1',
        cardIssuedCountry: 'GB',
        cardLast4Digits: '0005',
        cardFirst6Digits: '400000',
        cardBrand: 'VISA',
        cardFunding: 'DEBIT',
        cardType: 'VIRTUAL',
        cardStatus: 'ACTIVE',
        nameOnCard: { firstName: 'Ada', lastName: 'Lovelace' },
        cardExpiry: { month: 12, year: 2030 },
        '3dsDone': true,
        cardPresent: false,
        cardAuthenticated: true,
        cardTokenized: true,
        paymentChannel: 'ECOM',
        merchantDetails: { id: 'm1', MCC: '5999' },
        cardBalance: { amountValue: -10, amountCurrency: 'GBP' },
      },
    },
    { name: 'IBAN', input: { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX', country: 'DE', bankName: 'Commerzbank' } },
    { name: 'ACH', input: { method: 'ACH', routingNumber: '011000015', accountNumber: '123', bankName: 'Fed' } },
    { name: 'SWIFT', input: { method: 'SWIFT', swiftCode: 'DEUTDEFF', accountNumber: '1', correspondentBankDetails: [{ bankSwiftCode: 'X' }] } },
    { name: 'GENERIC_BANK_ACCOUNT', input: { method: 'GENERIC_BANK_ACCOUNT', accountNumber: '1', bankCode: '2', country: 'NG' } },
    { name: 'WALLET', input: { method: 'WALLET', walletType: 'crypto', walletId: '0xabc', walletBalance: { amountValue: 1, amountCurrency: 'ETH' } } },
    { name: 'UPI', input: { method: 'UPI', upiID: 'ada@okbank', bankProvider: 'SBI' } },
    {
      name: 'MPESA',
      input: { method: 'MPESA', businessShortCode: '174379', transactionType: 'CustomerPayBillOnline', phoneNumber: '254700000000' },
    },
    { name: 'CHECK', input: { method: 'CHECK', checkNumber: '0001', etaTimestamp: TS } },
    { name: 'CASH', input: { method: 'CASH', identifier: 'till-9' } },
    { name: 'NPP', input: { method: 'NPP', payId: 'ada@example.com', bsb: '062-000', name: { firstName: 'Ada' }, isInstant: true } },
  ];

  test('covers every payment method exactly once', () => {
    expect([...PAYMENT_DETAILS_METHODS].sort()).toEqual([...PAYMENT_METHODS].sort());
    expect(valid.map((row) => row.input['method']).sort()).toEqual([...PAYMENT_METHODS].sort());
  });

  test.each(valid)('accepts $name', ({ input }) => {
    expect(pairsOf(PaymentDetailsSchema, input)).toEqual([]);
  });

  const invalid: Row[] = [
    { name: 'UPI without upiID', input: { method: 'UPI' }, expected: [{ path: '/upiID', code: 'required' }] },
    { name: 'UPI with the SDK name upiId only', input: { method: 'UPI', upiId: 'a@b' }, expected: [{ path: '/upiID', code: 'required' }] },
    {
      name: 'MPESA without its three required fields',
      input: { method: 'MPESA', name: 'x' },
      expected: [
        { path: '/businessShortCode', code: 'required' },
        { path: '/transactionType', code: 'required' },
        { path: '/phoneNumber', code: 'required' },
      ],
    },
    {
      name: 'MPESA with an unknown transaction type',
      input: { method: 'MPESA', businessShortCode: '1', transactionType: 'Other', phoneNumber: '2' },
      expected: [{ path: '/transactionType', code: 'enum' }],
    },
    { name: 'CARD last 4 digits with 3 digits', input: { method: 'CARD', cardLast4Digits: '123' }, expected: [{ path: '/cardLast4Digits', code: 'pattern' }] },
    {
      name: 'CARD first 6 digits with a letter',
      input: { method: 'CARD', cardFirst6Digits: '42424x' },
      expected: [{ path: '/cardFirst6Digits', code: 'pattern' }],
    },
    { name: 'CARD unknown brand', input: { method: 'CARD', cardBrand: 'visa' }, expected: [{ path: '/cardBrand', code: 'enum' }] },
    { name: 'CARD expiry month 13', input: { method: 'CARD', cardExpiry: { month: 13 } }, expected: [{ path: '/cardExpiry/month', code: 'maximum' }] },
    {
      name: 'CARD MCC over 16 characters',
      input: { method: 'CARD', merchantDetails: { MCC: long(17) } },
      expected: [{ path: '/merchantDetails/MCC', code: 'maxLength' }],
    },
    { name: 'IBAN over 64 characters', input: { method: 'IBAN', IBAN: long(65) }, expected: [{ path: '/IBAN', code: 'maxLength' }] },
    { name: 'IBAN with an unknown country', input: { method: 'IBAN', country: 'Germany' }, expected: [{ path: '/country', code: 'format' }] },
    {
      name: 'ACH account number over 256 characters',
      input: { method: 'ACH', accountNumber: long(257) },
      expected: [{ path: '/accountNumber', code: 'maxLength' }],
    },
    {
      name: 'SWIFT correspondent banks not objects',
      input: { method: 'SWIFT', correspondentBankDetails: ['x'] },
      expected: [{ path: '/correspondentBankDetails/0', code: 'type' }],
    },
    { name: 'GENERIC_BANK_ACCOUNT bad country', input: { method: 'GENERIC_BANK_ACCOUNT', country: 'ng' }, expected: [{ path: '/country', code: 'format' }] },
    {
      name: 'WALLET balance without currency',
      input: { method: 'WALLET', walletBalance: { amountValue: 1 } },
      expected: [{ path: '/walletBalance/amountCurrency', code: 'required' }],
    },
    { name: 'CHECK eta before 1980', input: { method: 'CHECK', etaTimestamp: 0 }, expected: [{ path: '/etaTimestamp', code: 'minimum' }] },
    { name: 'CASH identifier not a string', input: { method: 'CASH', identifier: 9 }, expected: [{ path: '/identifier', code: 'type' }] },
    { name: 'NPP name as a plain string', input: { method: 'NPP', name: 'Ada' }, expected: [{ path: '/name', code: 'type' }] },
    { name: 'unknown counterparty type', input: { method: 'CASH', counterpartyType: 'COMPANY' }, expected: [{ path: '/counterpartyType', code: 'enum' }] },
    { name: 'lower-case method', input: { method: 'card' }, expected: [{ path: '/method', code: 'enum' }] },
  ];

  test.each(invalid)('rejects $name', ({ input, expected }) => {
    expect(pairsOf(PaymentDetailsSchema, input)).toEqual(expected);
  });

  test('each variant schema accepts its own method only', () => {
    const variants = [
      [CardDetailsSchema, 'CARD'],
      [IbanDetailsSchema, 'IBAN'],
      [AchDetailsSchema, 'ACH'],
      [SwiftDetailsSchema, 'SWIFT'],
      [GenericBankAccountDetailsSchema, 'GENERIC_BANK_ACCOUNT'],
      [WalletDetailsSchema, 'WALLET'],
      [CheckDetailsSchema, 'CHECK'],
      [CashDetailsSchema, 'CASH'],
      [NppDetailsSchema, 'NPP'],
    ] as const;
    for (const [schema, method] of variants) {
      expect(pairsOf(schema, { method })).toEqual([]);
      expect(pairsOf(schema, { method: method === 'CASH' ? 'CARD' : 'CASH' })).toEqual([{ path: '/method', code: 'const' }]);
    }
    expect(pairsOf(UpiDetailsSchema, { method: 'UPI', upiID: 'a' })).toEqual([]);
    expect(pairsOf(MpesaDetailsSchema, { method: 'MPESA', businessShortCode: '1', transactionType: 'SalaryPayment', phoneNumber: '1' })).toEqual([]);
  });
});

describe('DeviceDataSchema', () => {
  test.each([
    { name: 'empty device data', input: {}, expected: [] },
    { name: 'IPv6 address', input: { ipAddress: '2001:db8::1', ipCountry: 'N/A' }, expected: [] },
    { name: 'ip address over 64 characters', input: { ipAddress: long(65) }, expected: [{ path: '/ipAddress', code: 'maxLength' }] },
    { name: 'vpnUsed as a string', input: { vpnUsed: 'true' }, expected: [{ path: '/vpnUsed', code: 'type' }] },
  ] satisfies Row[])('$name', ({ input, expected }) => {
    expect(pairsOf(DeviceDataSchema, input)).toEqual(expected);
  });
});

describe('TransactionUpdatableSchema', () => {
  test.each([
    { name: 'empty update', input: {}, expected: [] },
    { name: 'new amount', input: { originAmountDetails: { transactionAmount: 5, transactionCurrency: 'INR' } }, expected: [] },
    { name: 'identity fields pass the schema (the engine rejects changes)', input: { transactionId: 'other', type: 'X' }, expected: [] },
    { name: 'bad payment details', input: { originPaymentDetails: { method: 'UPI' } }, expected: [{ path: '/originPaymentDetails/upiID', code: 'required' }] },
  ] satisfies Row[])('$name', ({ input, expected }) => {
    expect(pairsOf(TransactionUpdatableSchema, input)).toEqual(expected);
  });
});

describe('TransactionEventSchema', () => {
  const event = { transactionState: 'SUCCESSFUL', timestamp: TS, transactionId: 'tx-1' };
  const rows: Row[] = [
    { name: 'minimal event', input: event, expected: [] },
    {
      name: 'event with every optional field',
      input: {
        ...event,
        eventId: 'ev-1',
        reason: 'settled',
        eventDescription: 'bank confirmed',
        updatedTransactionAttributes: { reference: 'new ref', tags: [{ key: 'k', value: 'v', isTimestamp: false }] },
        metaData: { ipAddress: '10.0.0.1', ipCountry: 'FR' },
        externalLinks: ['https://example.com/x'],
      },
      expected: [],
    },
    { name: 'timestamp at the lower bound', input: { ...event, timestamp: MIN_TS }, expected: [] },
    { name: 'timestamp at the upper bound', input: { ...event, timestamp: MAX_TS }, expected: [] },
    { name: 'timestamp 1 ms below', input: { ...event, timestamp: MIN_TS - 1 }, expected: [{ path: '/timestamp', code: 'minimum' }] },
    { name: 'timestamp 1 ms above', input: { ...event, timestamp: MAX_TS + 1 }, expected: [{ path: '/timestamp', code: 'maximum' }] },
    {
      name: 'missing state, timestamp and transaction id',
      input: {},
      expected: [
        { path: '/transactionState', code: 'required' },
        { path: '/timestamp', code: 'required' },
        { path: '/transactionId', code: 'required' },
      ],
    },
    { name: 'empty transactionId', input: { ...event, transactionId: '' }, expected: [{ path: '/transactionId', code: 'minLength' }] },
    { name: 'empty eventId', input: { ...event, eventId: '' }, expected: [{ path: '/eventId', code: 'minLength' }] },
    { name: 'unknown state', input: { ...event, transactionState: 'Successful' }, expected: [{ path: '/transactionState', code: 'enum' }] },
    { name: 'reason over 4096 characters', input: { ...event, reason: long(4097) }, expected: [{ path: '/reason', code: 'maxLength' }] },
    {
      // A merge patch may be partial, so nested values are checked after the merge by
      // applyTransactionEvent (test/engine/apply-event.test.ts), not by the event schema.
      name: 'nested update is left to the post-merge check',
      input: { ...event, updatedTransactionAttributes: { originAmountDetails: { transactionAmount: -1, transactionCurrency: 'EUR' } } },
      expected: [],
    },
    {
      name: 'non-object update',
      input: { ...event, updatedTransactionAttributes: [1] },
      expected: [{ path: '/updatedTransactionAttributes', code: 'type' }],
    },
    { name: 'metaData with bad ipCountry', input: { ...event, metaData: { ipCountry: 'EU' } }, expected: [{ path: '/metaData/ipCountry', code: 'format' }] },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(TransactionEventSchema, input)).toEqual(expected);
  });
});

describe('ConsumerUserSchema', () => {
  const user = { userId: 'u-1', createdTimestamp: TS };
  const rows: Row[] = [
    { name: 'minimal consumer', input: user, expected: [] },
    {
      name: 'consumer with typed details and unknown extras',
      input: {
        ...user,
        userDetails: { name: { firstName: 'Ada', lastName: 'L' }, dateOfBirth: '1990-02-28', countryOfResidence: 'GB', countryOfNationality: 'IE' },
        userStateDetails: { state: 'ACTIVE', reason: 'onboarded' },
        kycStatusDetails: { status: 'SUCCESSFUL' },
        riskLevel: 'LOW',
        kycRiskLevel: 'VERY_HIGH',
        acquisitionChannel: 'REFERRAL',
        userSegment: 'RETAIL',
        employmentStatus: 'EMPLOYED',
        savedPaymentDetails: [{ method: 'CARD', cardFingerprint: 'f' }],
      },
      expected: [],
    },
    {
      name: 'missing userId and createdTimestamp',
      input: {},
      expected: [
        { path: '/userId', code: 'required' },
        { path: '/createdTimestamp', code: 'required' },
      ],
    },
    { name: 'empty userId', input: { ...user, userId: '' }, expected: [{ path: '/userId', code: 'minLength' }] },
    { name: 'createdTimestamp before 1980', input: { ...user, createdTimestamp: MIN_TS - 1 }, expected: [{ path: '/createdTimestamp', code: 'minimum' }] },
    { name: 'unknown risk level', input: { ...user, riskLevel: 'EXTREME' }, expected: [{ path: '/riskLevel', code: 'enum' }] },
    {
      name: 'user state without state',
      input: { ...user, userStateDetails: { reason: 'x' } },
      expected: [{ path: '/userStateDetails/state', code: 'required' }],
    },
    { name: 'unknown KYC status', input: { ...user, kycStatusDetails: { status: 'OK' } }, expected: [{ path: '/kycStatusDetails/status', code: 'enum' }] },
    {
      name: 'impossible date of birth',
      input: { ...user, userDetails: { dateOfBirth: '1990-13-01' } },
      expected: [{ path: '/userDetails/dateOfBirth', code: 'format' }],
    },
    { name: '30 February', input: { ...user, userDetails: { dateOfBirth: '1990-02-30' } }, expected: [{ path: '/userDetails/dateOfBirth', code: 'format' }] },
    {
      name: '29 February of a non-leap year',
      input: { ...user, userDetails: { dateOfBirth: '1900-02-29' } },
      expected: [{ path: '/userDetails/dateOfBirth', code: 'format' }],
    },
    { name: 'business segment on a consumer', input: { ...user, userSegment: 'SMB' }, expected: [{ path: '/userSegment', code: 'enum' }] },
    {
      name: 'saved payment details with unknown method',
      input: { ...user, savedPaymentDetails: [{ method: 'CARD' }, { method: 'BITCOIN' }] },
      expected: [{ path: '/savedPaymentDetails/1/method', code: 'enum' }],
    },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(ConsumerUserSchema, input)).toEqual(expected);
  });
});

describe('BusinessUserSchema', () => {
  const business = { userId: 'b-1', createdTimestamp: TS, legalEntity: { companyGeneralDetails: { legalName: 'Acme Ltd' } } };
  const rows: Row[] = [
    { name: 'minimal business', input: business, expected: [] },
    { name: 'general details without legal name', input: { ...business, legalEntity: { companyGeneralDetails: {} } }, expected: [] },
    {
      name: 'business with typed fields',
      input: {
        ...business,
        legalEntity: {
          companyGeneralDetails: { legalName: 'Acme', userSegment: 'SMB', businessIndustry: ['retail'] },
          companyRegistrationDetails: { registrationIdentifier: '123', registrationCountry: 'GB' },
        },
        riskLevel: 'HIGH',
        allowedPaymentMethods: ['CARD', 'IBAN'],
        directors: [{ generalDetails: {} }],
      },
      expected: [],
    },
    { name: 'missing legal entity', input: { userId: 'b', createdTimestamp: TS }, expected: [{ path: '/legalEntity', code: 'required' }] },
    {
      name: 'legal entity without general details',
      input: { ...business, legalEntity: {} },
      expected: [{ path: '/legalEntity/companyGeneralDetails', code: 'required' }],
    },
    {
      name: 'duplicate allowed payment methods',
      input: { ...business, allowedPaymentMethods: ['CARD', 'CARD'] },
      expected: [{ path: '/allowedPaymentMethods', code: 'uniqueItems' }],
    },
    {
      name: 'unknown allowed payment method',
      input: { ...business, allowedPaymentMethods: ['CHEQUE'] },
      expected: [{ path: '/allowedPaymentMethods/0', code: 'enum' }],
    },
    {
      name: 'bad registration country',
      input: { ...business, legalEntity: { companyGeneralDetails: {}, companyRegistrationDetails: { registrationCountry: 'UK' } } },
      expected: [{ path: '/legalEntity/companyRegistrationDetails/registrationCountry', code: 'format' }],
    },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(BusinessUserSchema, input)).toEqual(expected);
  });
});

describe('CommentRequestSchema', () => {
  const rows: Row[] = [
    { name: 'body only', input: { body: 'looks fine' }, expected: [] },
    { name: 'file with s3Key', input: { body: 'x', files: [{ s3Key: 'k1', filename: 'a.pdf', size: 10 }] }, expected: [] },
    { name: 'file with the key alias', input: { body: 'x', files: [{ key: 'k1', filename: 'a.pdf', size: 0 }] }, expected: [] },
    { name: 'createdTimestamp in range', input: { body: 'x', createdTimestamp: MAX_TS }, expected: [] },
    { name: 'body at 100000 characters', input: { body: long(100_000) }, expected: [] },
    { name: 'empty body', input: { body: '' }, expected: [{ path: '/body', code: 'minLength' }] },
    { name: 'missing body', input: {}, expected: [{ path: '/body', code: 'required' }] },
    { name: 'body over 100000 characters', input: { body: long(100_001) }, expected: [{ path: '/body', code: 'maxLength' }] },
    {
      name: 'file without any key gives one required detail',
      input: { body: 'x', files: [{ filename: 'a.pdf', size: 1 }] },
      expected: [{ path: '/files/0/s3Key', code: 'required' }],
    },
    {
      name: 'file name with a path separator and a fractional size',
      input: { body: 'x', files: [{ key: 'k', filename: '../etc/passwd', size: 1.5 }] },
      expected: [
        { path: '/files/0/filename', code: 'pattern' },
        { path: '/files/0/size', code: 'type' },
      ],
    },
    {
      name: 'file name ".."',
      input: { body: 'x', files: [{ key: 'k', filename: '..', size: 1 }] },
      expected: [{ path: '/files/0/filename', code: 'pattern' }],
    },
    {
      name: 'negative file size',
      input: { body: 'x', files: [{ key: 'k', filename: 'a', size: -1 }] },
      expected: [{ path: '/files/0/size', code: 'minimum' }],
    },
    {
      name: '21 files',
      input: { body: 'x', files: Array.from({ length: 21 }, (_, i) => ({ key: `k${i}`, filename: 'f', size: 1 })) },
      expected: [{ path: '/files', code: 'maxItems' }],
    },
    { name: 'createdTimestamp out of range', input: { body: 'x', createdTimestamp: 1 }, expected: [{ path: '/createdTimestamp', code: 'minimum' }] },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(CommentRequestSchema, input)).toEqual(expected);
  });
});

describe('PresignedUrlRequestSchema', () => {
  const rows: Row[] = [
    { name: 'valid request', input: { filename: 'statement.pdf', fileSize: 1024 }, expected: [] },
    { name: 'zero-byte file', input: { filename: 'empty.txt', fileSize: 0 }, expected: [] },
    { name: 'empty file name', input: { filename: '', fileSize: 1 }, expected: [{ path: '/filename', code: 'minLength' }] },
    { name: 'file name of 257 characters', input: { filename: long(257), fileSize: 1 }, expected: [{ path: '/filename', code: 'maxLength' }] },
    { name: 'file name with a control character', input: { filename: 'a\u0001b', fileSize: 1 }, expected: [{ path: '/filename', code: 'pattern' }] },
    {
      name: 'file name with a NUL character (no stored text holds one)',
      input: { filename: 'a\u0000b', fileSize: 1 },
      expected: [{ path: '/filename', code: 'not-json' }],
    },
    { name: 'file size above the safe integer range', input: { filename: 'a', fileSize: 2 ** 53 }, expected: [{ path: '/fileSize', code: 'maximum' }] },
    { name: 'missing size', input: { filename: 'a' }, expected: [{ path: '/fileSize', code: 'required' }] },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(PresignedUrlRequestSchema, input)).toEqual(expected);
  });
});

describe('RuleInstanceRequestSchema', () => {
  const levels = (value: unknown) => ({ VERY_LOW: value, LOW: value, MEDIUM: value, HIGH: value, VERY_HIGH: value });
  const rows: Row[] = [
    { name: 'empty request', input: {}, expected: [] },
    {
      name: 'full request',
      input: {
        ruleId: 'R-2',
        alertCreationOnHit: true,
        filters: { transactionTypes: ['DEPOSIT'] },
        parameters: { transactionAmountThreshold: { EUR: 10000 } },
        ruleNameAlias: 'Big deposit',
        ruleDescriptionAlias: 'Deposits above 10k',
        riskLevelParameters: levels({ transactionAmountThreshold: { EUR: 5000 } }),
        action: 'SUSPEND',
        riskLevelActions: levels('FLAG'),
        triggersOnHit: { usersToCheck: 'ORIGIN', userStateDetails: { state: 'SUSPENDED', reason: 'pending checks' } },
        riskLevelsTriggersOnHit: levels({ kycStatusDetails: { status: 'MANUAL_REVIEW', reason: 'edd', description: 'd' } }),
        status: 'ACTIVE',
        mode: 'SHADOW',
        casePriority: 'P2',
        nature: 'AML',
        labels: ['EDD_TRIGGER', 'SCAM'],
      },
      expected: [],
    },
    { name: 'custom rule with logic', input: { logic: { '>': [{ var: 'agg.sum' }, 100] }, logicAggregationVariables: [{ key: 'sum' }] }, expected: [] },
    { name: 'unknown property', input: { ruleId: 'R-1', paramaters: {} }, expected: [{ path: '/paramaters', code: 'additionalProperties' }] },
    { name: 'read-only field in the raw schema', input: { id: 'x' }, expected: [{ path: '/id', code: 'additionalProperties' }] },
    { name: 'unknown action', input: { action: 'REJECT' }, expected: [{ path: '/action', code: 'enum' }] },
    { name: 'parameters not an object', input: { parameters: [] }, expected: [{ path: '/parameters', code: 'type' }] },
    {
      name: 'risk-level actions missing levels',
      input: { riskLevelActions: { VERY_HIGH: 'BLOCK', HIGH: 'FLAG', MEDIUM: 'FLAG', LOW: 'ALLOW' } },
      expected: [{ path: '/riskLevelActions/VERY_LOW', code: 'required' }],
    },
    {
      name: 'risk-level actions with an extra level',
      input: { riskLevelActions: { ...levels('FLAG'), EXTREME: 'BLOCK' } },
      expected: [{ path: '/riskLevelActions/EXTREME', code: 'additionalProperties' }],
    },
    {
      name: 'triggers on hit without reason',
      input: { triggersOnHit: { kycStatusDetails: { status: 'FAILED' } } },
      expected: [{ path: '/triggersOnHit/kycStatusDetails/reason', code: 'required' }],
    },
    {
      name: 'unknown trigger property',
      input: { triggersOnHit: { pepStatus: {} } },
      expected: [{ path: '/triggersOnHit/pepStatus', code: 'additionalProperties' }],
    },
    { name: 'duplicate labels', input: { labels: ['SCAM', 'SCAM'] }, expected: [{ path: '/labels', code: 'uniqueItems' }] },
    { name: 'alias over 256 characters', input: { ruleNameAlias: long(257) }, expected: [{ path: '/ruleNameAlias', code: 'maxLength' }] },
    {
      name: 'unknown mode and priority',
      input: { mode: 'TEST', casePriority: 'P5' },
      expected: [
        { path: '/mode', code: 'enum' },
        { path: '/casePriority', code: 'enum' },
      ],
    },
  ];
  test.each(rows)('$name', ({ input, expected }) => {
    expect(pairsOf(RuleInstanceRequestSchema, input)).toEqual(expected);
  });
});

describe('RiskLevelRecordSchema', () => {
  test('requires all five levels and nothing else', () => {
    const schema = RiskLevelRecordSchema(RuleActionSchema);
    expect(pairsOf(schema, { VERY_LOW: 'ALLOW', LOW: 'ALLOW', MEDIUM: 'FLAG', HIGH: 'SUSPEND', VERY_HIGH: 'BLOCK' })).toEqual([]);
    expect(pairsOf(schema, { VERY_LOW: 'ALLOW', LOW: 'ALLOW', MEDIUM: 'FLAG', HIGH: 'SUSPEND' })).toEqual([{ path: '/VERY_HIGH', code: 'required' }]);
    expect(pairsOf(schema, { VERY_LOW: 'ALLOW', LOW: 'ALLOW', MEDIUM: 'FLAG', HIGH: 'SUSPEND', VERY_HIGH: 'NOPE' })).toEqual([
      { path: '/VERY_HIGH', code: 'enum' },
    ]);
  });
});
