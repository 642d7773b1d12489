import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { TRANSACTION_STATES, type Transaction } from '../../../src/domain/index.js';
import { isTxmonError } from '../../../src/errors.js';
import { compileRuleFilters, evaluateRuleFilters, hasActiveFilters, validateRuleFilters, type FilterDecision } from '../../../src/rules/filters/index.js';
import type { RuleFilters } from '../../../src/domain/schemas/rule-filters.js';
import type { RuleUser } from '../../../src/rules/types.js';

/* ---------------------------------------------------------------------------------------------- */
/* Fixtures                                                                                       */
/* ---------------------------------------------------------------------------------------------- */

const NOON = Date.UTC(2024, 5, 10, 12, 0, 0);

function makeTransaction(overrides: Partial<Transaction> = {}): Transaction {
  return { type: 'TRANSFER', transactionId: 't-1', timestamp: NOON, ...overrides };
}

function makeUser(userId: string, type: RuleUser['type'], profile: Record<string, unknown> | null): RuleUser {
  return { userId, type, profile, riskLevel: null, craScore: null };
}

const consumer = makeUser('c-1', 'CONSUMER', {
  userId: 'c-1',
  createdTimestamp: Date.UTC(2024, 0, 15, 12, 0, 0),
  userDetails: { dateOfBirth: '2000-06-15', countryOfResidence: 'DE', countryOfNationality: 'FR' },
  userSegment: 'RETAIL',
  acquisitionChannel: 'PAID',
  kycStatusDetails: { status: 'SUCCESSFUL' },
  userStateDetails: { state: 'ACTIVE' },
  tags: [
    { key: 'tier', value: 'gold' },
    { key: 'region', value: 'eu' },
  ],
});

const business = makeUser('b-1', 'BUSINESS', {
  userId: 'b-1',
  createdTimestamp: Date.UTC(2020, 0, 1),
  legalEntity: {
    companyGeneralDetails: { legalName: 'Acme', userSegment: 'SMB' },
    companyRegistrationDetails: { registrationCountry: 'GB', dateOfRegistration: '2010-03-01' },
  },
});

/** A user seen in transactions but never created by the host. */
const seenOnly = makeUser('s-1', null, null);

const card = { method: 'CARD', cardIssuedCountry: 'DE', paymentChannel: 'ONLINE', merchantDetails: { MCC: '5411' } } as const;
const wallet = { method: 'WALLET', walletType: 'paypal', walletId: 'w-1' } as const;
const iban = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' } as const;

const ALL: FilterDecision = { run: true, origin: true, destination: true };
const NONE: FilterDecision = { run: false, origin: false, destination: false };

/** Runs `filters` on a transaction with users on both sides that pass nothing special. */
function runOn(filters: RuleFilters, transaction: Transaction): boolean {
  return evaluateRuleFilters(filters, { transaction, originUser: consumer, destinationUser: business }).run;
}

/** Whether `user` (as the sender, no receiver) passes the user filters. */
function senderPasses(filters: RuleFilters, user: RuleUser | null, transaction: Transaction = makeTransaction()): boolean {
  const decision = evaluateRuleFilters(filters, { transaction, originUser: user, destinationUser: null });
  return decision.run && decision.origin;
}

function at(iso: string): number {
  return Date.parse(iso);
}

/** `'valid'`, or the details of the INVALID_FILTERS error `validateRuleFilters` throws. */
function validationDetails(input: unknown): { path: string; code: string }[] | 'valid' {
  try {
    validateRuleFilters(input);
    return 'valid';
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    expect(error.code).toBe('INVALID_FILTERS');
    expect(error.status).toBe(400);
    return error.details.map(({ path, code }) => ({ path, code }));
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* evaluateRuleFilters: transaction filters                                                       */
/* ---------------------------------------------------------------------------------------------- */

interface TransactionRow {
  name: string;
  filters: RuleFilters;
  transaction: Transaction;
  expected: boolean;
}

function tx(overrides: Partial<Transaction>): Transaction {
  return makeTransaction(overrides);
}

function amount(transactionAmount: number, transactionCurrency = 'EUR'): Partial<Transaction> {
  return { originAmountDetails: { transactionAmount, transactionCurrency } };
}

function timeOfDay(hours: number, minutes: number, seconds = 0, ms = 0): Partial<Transaction> {
  return { timestamp: Date.UTC(2024, 5, 10, hours, minutes, seconds, ms) };
}

const nineToFive: RuleFilters = {
  transactionTimeRange24hr: { startTime: { utcHours: 9, utcMinutes: 0 }, endTime: { utcHours: 17, utcMinutes: 0 } },
};
const overnight: RuleFilters = {
  transactionTimeRange24hr: { startTime: { utcHours: 22, utcMinutes: 0 }, endTime: { utcHours: 6, utcMinutes: 0 } },
};
const eurRange: RuleFilters = { transactionAmountRange: { EUR: { min: 10, max: 1000 } } };

describe('evaluateRuleFilters', () => {
  const transactionRows: TransactionRow[] = [
    // originPaymentFilters / destinationPaymentFilters
    {
      name: 'payment method listed',
      filters: { originPaymentFilters: { paymentMethods: ['CARD', 'IBAN'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: true,
    },
    {
      name: 'payment method not listed',
      filters: { originPaymentFilters: { paymentMethods: ['IBAN'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: false,
    },
    { name: 'payment filter without payment details', filters: { originPaymentFilters: { paymentMethods: ['CARD'] } }, transaction: tx({}), expected: false },
    {
      name: 'empty payment sub-filters without payment details',
      filters: { originPaymentFilters: { paymentMethods: [], mccCodes: [], walletType: '' } },
      transaction: tx({}),
      expected: true,
    },
    {
      name: 'wallet type matches',
      filters: { originPaymentFilters: { walletType: 'paypal' } },
      transaction: tx({ originPaymentDetails: wallet }),
      expected: true,
    },
    {
      name: 'wallet type differs',
      filters: { originPaymentFilters: { walletType: 'venmo' } },
      transaction: tx({ originPaymentDetails: wallet }),
      expected: false,
    },
    {
      name: 'wallet type on a card (field missing)',
      filters: { originPaymentFilters: { walletType: 'paypal' } },
      transaction: tx({ originPaymentDetails: card }),
      expected: false,
    },
    {
      name: 'card issued country listed',
      filters: { originPaymentFilters: { cardIssuedCountries: ['DE'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: true,
    },
    {
      name: 'card issued country not listed',
      filters: { originPaymentFilters: { cardIssuedCountries: ['FR'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: false,
    },
    {
      name: 'card issued country on an IBAN (field missing)',
      filters: { originPaymentFilters: { paymentMethods: ['CARD', 'IBAN'], cardIssuedCountries: ['DE'] } },
      transaction: tx({ originPaymentDetails: iban }),
      expected: false,
    },
    {
      name: 'payment channel listed',
      filters: { originPaymentFilters: { cardPaymentChannels: ['ONLINE'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: true,
    },
    {
      name: 'payment channel not listed',
      filters: { originPaymentFilters: { cardPaymentChannels: ['POS'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: false,
    },
    { name: 'MCC listed', filters: { originPaymentFilters: { mccCodes: ['5411'] } }, transaction: tx({ originPaymentDetails: card }), expected: true },
    { name: 'MCC not listed', filters: { originPaymentFilters: { mccCodes: ['6011'] } }, transaction: tx({ originPaymentDetails: card }), expected: false },
    {
      name: 'MCC without merchant details',
      filters: { originPaymentFilters: { mccCodes: ['5411'] } },
      transaction: tx({ originPaymentDetails: { method: 'CARD' } }),
      expected: false,
    },
    {
      name: 'all payment sub-filters match',
      filters: { originPaymentFilters: { paymentMethods: ['CARD'], cardIssuedCountries: ['DE'], cardPaymentChannels: ['ONLINE'], mccCodes: ['5411'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: true,
    },
    {
      name: 'one payment sub-filter fails',
      filters: { originPaymentFilters: { paymentMethods: ['CARD'], mccCodes: ['6011'] } },
      transaction: tx({ originPaymentDetails: card }),
      expected: false,
    },
    {
      name: 'destination filter reads destination details',
      filters: { destinationPaymentFilters: { paymentMethods: ['WALLET'] } },
      transaction: tx({ originPaymentDetails: card, destinationPaymentDetails: wallet }),
      expected: true,
    },
    {
      name: 'destination filter ignores origin details',
      filters: { destinationPaymentFilters: { paymentMethods: ['CARD'] } },
      transaction: tx({ originPaymentDetails: card, destinationPaymentDetails: wallet }),
      expected: false,
    },
    // transactionTypes
    { name: 'type listed', filters: { transactionTypes: ['DEPOSIT', 'TRANSFER'] }, transaction: tx({}), expected: true },
    { name: 'type not listed', filters: { transactionTypes: ['DEPOSIT'] }, transaction: tx({}), expected: false },
    { name: 'type is case-sensitive', filters: { transactionTypes: ['transfer'] }, transaction: tx({}), expected: false },
    // transactionStates
    { name: 'state listed', filters: { transactionStates: ['SUCCESSFUL'] }, transaction: tx({ transactionState: 'SUCCESSFUL' }), expected: true },
    { name: 'state not listed', filters: { transactionStates: ['SUCCESSFUL'] }, transaction: tx({ transactionState: 'DECLINED' }), expected: false },
    { name: 'no state counts as CREATED', filters: { transactionStates: ['CREATED'] }, transaction: tx({}), expected: true },
    { name: 'no state is not SUCCESSFUL', filters: { transactionStates: ['SUCCESSFUL'] }, transaction: tx({}), expected: false },
    // origin / destination countries
    {
      name: 'origin country listed',
      filters: { originTransactionCountries: ['DE'] },
      transaction: tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'DE' } }),
      expected: true,
    },
    {
      name: 'origin country not listed',
      filters: { originTransactionCountries: ['FR'] },
      transaction: tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'DE' } }),
      expected: false,
    },
    { name: 'origin country missing', filters: { originTransactionCountries: ['DE'] }, transaction: tx(amount(1)), expected: false },
    {
      name: 'destination country listed',
      filters: { destinationTransactionCountries: ['FR'] },
      transaction: tx({ destinationAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'FR' } }),
      expected: true,
    },
    {
      name: 'destination country read from destination side only',
      filters: { destinationTransactionCountries: ['DE'] },
      transaction: tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'DE' } }),
      expected: false,
    },
    // transactionAmountRange
    { name: 'amount exactly at min', filters: eurRange, transaction: tx(amount(10)), expected: true },
    { name: 'amount one minor unit below min', filters: eurRange, transaction: tx(amount(9.99)), expected: false },
    { name: 'amount exactly at max', filters: eurRange, transaction: tx(amount(1000)), expected: true },
    { name: 'amount one minor unit above max', filters: eurRange, transaction: tx(amount(1000.01)), expected: false },
    {
      name: 'amount from a binary float sum equals min exactly',
      filters: { transactionAmountRange: { EUR: { min: 0.3 } } },
      transaction: tx(amount(0.1 + 0.2)),
      expected: true,
    },
    { name: 'currency not listed', filters: eurRange, transaction: tx(amount(100, 'USD')), expected: false },
    { name: 'currency listed without bounds', filters: { transactionAmountRange: { USD: {} } }, transaction: tx(amount(123456, 'USD')), expected: true },
    { name: 'only a max bound', filters: { transactionAmountRange: { EUR: { max: 5 } } }, transaction: tx(amount(0)), expected: true },
    {
      name: 'no origin amount',
      filters: eurRange,
      transaction: tx({ destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR' } }),
      expected: false,
    },
    // productTypes
    { name: 'product type listed', filters: { productTypes: ['gift-card'] }, transaction: tx({ productType: 'gift-card' }), expected: true },
    { name: 'product type not listed', filters: { productTypes: ['gift-card'] }, transaction: tx({ productType: 'loan' }), expected: false },
    { name: 'product type missing', filters: { productTypes: ['gift-card'] }, transaction: tx({}), expected: false },
    // transactionTags
    {
      name: 'tags OR: one tag matches',
      filters: { transactionTags: { tags: { channel: ['web'], risk: ['high'] } } },
      transaction: tx({ tags: [{ key: 'channel', value: 'web' }] }),
      expected: true,
    },
    {
      name: 'tags OR: key matches, value does not',
      filters: { transactionTags: { tags: { channel: ['web'] } } },
      transaction: tx({ tags: [{ key: 'channel', value: 'app' }] }),
      expected: false,
    },
    {
      name: 'tags OR: value under another key',
      filters: { transactionTags: { tags: { channel: ['web'] } } },
      transaction: tx({ tags: [{ key: 'source', value: 'web' }] }),
      expected: false,
    },
    { name: 'tags: transaction without tags', filters: { transactionTags: { tags: { channel: ['web'] } } }, transaction: tx({}), expected: false },
    {
      name: 'tags AND: every key matches',
      filters: { transactionTags: { tags: { channel: ['web', 'app'], risk: ['high'] }, useAndLogic: true } },
      transaction: tx({
        tags: [
          { key: 'risk', value: 'high' },
          { key: 'channel', value: 'app' },
        ],
      }),
      expected: true,
    },
    {
      name: 'tags AND: one key missing',
      filters: { transactionTags: { tags: { channel: ['web'], risk: ['high'] }, useAndLogic: true } },
      transaction: tx({ tags: [{ key: 'channel', value: 'web' }] }),
      expected: false,
    },
    { name: 'tags: empty tag map is no filter', filters: { transactionTags: { tags: {}, useAndLogic: true } }, transaction: tx({}), expected: true },
    { name: 'tags: a key with no values is ignored', filters: { transactionTags: { tags: { channel: [] } } }, transaction: tx({}), expected: true },
    // transactionTimeRange24hr
    { name: 'time exactly at start (inclusive)', filters: nineToFive, transaction: tx(timeOfDay(9, 0)), expected: true },
    { name: 'time one ms before start', filters: nineToFive, transaction: tx(timeOfDay(8, 59, 59, 999)), expected: false },
    { name: 'time one ms before end', filters: nineToFive, transaction: tx(timeOfDay(16, 59, 59, 999)), expected: true },
    { name: 'time exactly at end (exclusive)', filters: nineToFive, transaction: tx(timeOfDay(17, 0)), expected: false },
    { name: 'wrapping range: at start', filters: overnight, transaction: tx(timeOfDay(22, 0)), expected: true },
    { name: 'wrapping range: just before start', filters: overnight, transaction: tx(timeOfDay(21, 59, 59, 999)), expected: false },
    { name: 'wrapping range: midnight', filters: overnight, transaction: tx(timeOfDay(0, 0)), expected: true },
    { name: 'wrapping range: just before end', filters: overnight, transaction: tx(timeOfDay(5, 59, 59, 999)), expected: true },
    { name: 'wrapping range: at end', filters: overnight, transaction: tx(timeOfDay(6, 0)), expected: false },
    { name: 'wrapping range: noon', filters: overnight, transaction: tx(timeOfDay(12, 0)), expected: false },
    {
      name: 'minutes of the bounds count',
      filters: { transactionTimeRange24hr: { startTime: { utcHours: 9, utcMinutes: 30 }, endTime: { utcHours: 9, utcMinutes: 45 } } },
      transaction: tx(timeOfDay(9, 44, 59)),
      expected: true,
    },
    // several filters: AND
    { name: 'two filters both pass', filters: { transactionTypes: ['TRANSFER'], transactionStates: ['CREATED'] }, transaction: tx({}), expected: true },
    { name: 'two filters, one fails', filters: { transactionTypes: ['TRANSFER'], transactionStates: ['SENT'] }, transaction: tx({}), expected: false },
    // historical filters never affect evaluation
    { name: 'historical filter is ignored', filters: { transactionTypesHistorical: ['NOPE'] }, transaction: tx({}), expected: true },
  ];
  it.each(transactionRows)('transaction filter: $name → run $expected', ({ filters, transaction, expected }) => {
    expect(runOn(filters, transaction)).toBe(expected);
    if (!expected) expect(evaluateRuleFilters(filters, { transaction, originUser: consumer, destinationUser: business })).toEqual(NONE);
  });

  /* -------------------------------------------------------------------------------------------- */
  /* user filters                                                                                 */
  /* -------------------------------------------------------------------------------------------- */

  interface UserRow {
    name: string;
    filters: RuleFilters;
    user: RuleUser | null;
    timestamp?: number;
    expected: boolean;
  }

  const withProfile = (base: RuleUser, patch: Record<string, unknown>): RuleUser => makeUser(base.userId, base.type, { ...base.profile, ...patch });
  const born = (dateOfBirth: string): RuleUser => withProfile(consumer, { userDetails: { dateOfBirth } });
  const adult: RuleFilters = { userAgeRange: { minAge: { units: 18, granularity: 'year' } } };
  const upTo18: RuleFilters = { userAgeRange: { maxAge: { units: 18, granularity: 'year' } } };
  const createdOneMonth: RuleFilters = { userCreationAgeRange: { minAge: { units: 1, granularity: 'month' } } };

  const userRows: UserRow[] = [
    // userType
    { name: 'userType matches', filters: { userType: 'CONSUMER' }, user: consumer, expected: true },
    { name: 'userType differs', filters: { userType: 'CONSUMER' }, user: business, expected: false },
    { name: 'userType on a user without profile', filters: { userType: 'CONSUMER' }, user: seenOnly, expected: false },
    { name: 'userType on a missing user', filters: { userType: 'CONSUMER' }, user: null, expected: false },
    // segments
    { name: 'consumer segment listed', filters: { consumerUserSegments: ['RETAIL'] }, user: consumer, expected: true },
    { name: 'consumer segment not listed', filters: { consumerUserSegments: ['PROFESSIONAL'] }, user: consumer, expected: false },
    { name: 'consumer segment on a business', filters: { consumerUserSegments: ['RETAIL'] }, user: business, expected: false },
    { name: 'business segment listed', filters: { businessUserSegments: ['SMB'] }, user: business, expected: true },
    { name: 'business segment not listed', filters: { businessUserSegments: ['LARGE'] }, user: business, expected: false },
    { name: 'business segment on a consumer', filters: { businessUserSegments: ['SMB'] }, user: consumer, expected: false },
    // userAgeRange (DOB 2000-06-15 unless stated)
    { name: 'age: 18th birthday, first instant', filters: adult, user: consumer, timestamp: at('2018-06-15T00:00:00.000Z'), expected: true },
    { name: 'age: day before the 18th birthday', filters: adult, user: consumer, timestamp: at('2018-06-14T23:59:59.999Z'), expected: false },
    { name: 'max age: last instant aged 18', filters: upTo18, user: consumer, timestamp: at('2019-06-14T23:59:59.999Z'), expected: true },
    { name: 'max age: 19th birthday', filters: upTo18, user: consumer, timestamp: at('2019-06-15T00:00:00.000Z'), expected: false },
    {
      name: 'age: leap-day birthday not yet reached on 28 Feb',
      filters: { userAgeRange: { minAge: { units: 1, granularity: 'year' } } },
      user: born('2000-02-29'),
      timestamp: at('2001-02-28T12:00:00Z'),
      expected: false,
    },
    {
      name: 'age: leap-day birthday reached on 1 Mar',
      filters: { userAgeRange: { minAge: { units: 1, granularity: 'year' } } },
      user: born('2000-02-29'),
      timestamp: at('2001-03-01T00:00:00Z'),
      expected: true,
    },
    {
      name: 'age in months: 31st not reached in a short month',
      filters: { userAgeRange: { minAge: { units: 1, granularity: 'month' } } },
      user: born('2000-01-31'),
      timestamp: at('2000-02-29T23:59:59Z'),
      expected: false,
    },
    {
      name: 'age in months: reached the day after',
      filters: { userAgeRange: { minAge: { units: 1, granularity: 'month' } } },
      user: born('2000-01-31'),
      timestamp: at('2000-03-01T00:00:00Z'),
      expected: true,
    },
    {
      name: 'age in days: exactly 10 days',
      filters: { userAgeRange: { minAge: { units: 10, granularity: 'day' } } },
      user: born('2000-01-01'),
      timestamp: at('2000-01-11T00:00:00Z'),
      expected: true,
    },
    {
      name: 'age in days: one ms short of 10 days',
      filters: { userAgeRange: { minAge: { units: 10, granularity: 'day' } } },
      user: born('2000-01-01'),
      timestamp: at('2000-01-10T23:59:59.999Z'),
      expected: false,
    },
    {
      name: 'age: min and max both hold',
      filters: { userAgeRange: { minAge: { units: 18, granularity: 'year' }, maxAge: { units: 30, granularity: 'year' } } },
      user: consumer,
      timestamp: at('2024-06-10T00:00:00Z'),
      expected: true,
    },
    { name: 'age: date of birth missing', filters: adult, user: withProfile(consumer, { userDetails: {} }), expected: false },
    { name: 'age: date of birth not a real date', filters: adult, user: born('2001-02-30'), expected: false },
    {
      name: 'age: born after the transaction',
      filters: { userAgeRange: { maxAge: { units: 100, granularity: 'year' } } },
      user: born('2030-01-01'),
      expected: false,
    },
    {
      name: 'age of a business from its registration date',
      filters: { userAgeRange: { minAge: { units: 14, granularity: 'year' } } },
      user: business,
      timestamp: at('2024-03-01T00:00:00Z'),
      expected: true,
    },
    {
      name: 'age of a business one day short',
      filters: { userAgeRange: { minAge: { units: 14, granularity: 'year' } } },
      user: business,
      timestamp: at('2024-02-29T23:59:59Z'),
      expected: false,
    },
    { name: 'age of a user without profile', filters: adult, user: seenOnly, expected: false },
    // userCreationAgeRange (created 2024-01-15T12:00Z)
    { name: 'creation age: exactly one month', filters: createdOneMonth, user: consumer, timestamp: at('2024-02-15T12:00:00.000Z'), expected: true },
    { name: 'creation age: one ms short of a month', filters: createdOneMonth, user: consumer, timestamp: at('2024-02-15T11:59:59.999Z'), expected: false },
    {
      name: 'creation age: max 30 days holds',
      filters: { userCreationAgeRange: { maxAge: { units: 30, granularity: 'day' } } },
      user: consumer,
      timestamp: at('2024-02-14T11:59:59.999Z'),
      expected: true,
    },
    {
      name: 'creation age: max 30 days exceeded',
      filters: { userCreationAgeRange: { maxAge: { units: 30, granularity: 'day' } } },
      user: consumer,
      timestamp: at('2024-02-15T12:00:00.000Z'),
      expected: false,
    },
    // whitelistUsers
    { name: 'whitelisted user fails', filters: { whitelistUsers: { userIds: ['c-1'] } }, user: consumer, expected: false },
    { name: 'user not whitelisted passes', filters: { whitelistUsers: { userIds: ['x'] } }, user: consumer, expected: true },
    { name: 'whitelist: user without profile, not listed, passes', filters: { whitelistUsers: { userIds: ['x'] } }, user: seenOnly, expected: true },
    { name: 'whitelist: missing user fails', filters: { whitelistUsers: { userIds: ['x'] } }, user: null, expected: false },
    // userIds
    { name: 'user id listed', filters: { userIds: ['c-1', 'x'] }, user: consumer, expected: true },
    { name: 'user id not listed', filters: { userIds: ['x'] }, user: consumer, expected: false },
    { name: 'user id listed, user without profile', filters: { userIds: ['s-1'] }, user: seenOnly, expected: true },
    { name: 'user ids: missing user', filters: { userIds: ['s-1'] }, user: null, expected: false },
    // countries
    { name: 'residence listed', filters: { userResidenceCountries: ['DE'] }, user: consumer, expected: true },
    { name: 'residence not listed', filters: { userResidenceCountries: ['FR'] }, user: consumer, expected: false },
    { name: 'residence on a business', filters: { userResidenceCountries: ['GB'] }, user: business, expected: false },
    { name: 'nationality listed', filters: { userNationalityCountries: ['FR'] }, user: consumer, expected: true },
    { name: 'nationality not listed', filters: { userNationalityCountries: ['DE'] }, user: consumer, expected: false },
    { name: 'registration country listed', filters: { userRegistrationCountries: ['GB'] }, user: business, expected: true },
    { name: 'registration country not listed', filters: { userRegistrationCountries: ['DE'] }, user: business, expected: false },
    { name: 'registration country on a consumer', filters: { userRegistrationCountries: ['DE'] }, user: consumer, expected: false },
    { name: 'country filter on a user without profile', filters: { userResidenceCountries: ['DE'] }, user: seenOnly, expected: false },
    // acquisition, KYC, status
    { name: 'acquisition channel listed', filters: { acquisitionChannels: ['PAID'] }, user: consumer, expected: true },
    { name: 'acquisition channel not listed', filters: { acquisitionChannels: ['ORGANIC'] }, user: consumer, expected: false },
    { name: 'acquisition channel missing', filters: { acquisitionChannels: ['PAID'] }, user: business, expected: false },
    { name: 'KYC status listed', filters: { kycStatus: ['SUCCESSFUL'] }, user: consumer, expected: true },
    { name: 'KYC status not listed', filters: { kycStatus: ['FAILED'] }, user: consumer, expected: false },
    { name: 'KYC status missing', filters: { kycStatus: ['SUCCESSFUL'] }, user: business, expected: false },
    { name: 'user status listed', filters: { userStatus: ['ACTIVE'] }, user: consumer, expected: true },
    { name: 'user status not listed', filters: { userStatus: ['BLOCKED'] }, user: consumer, expected: false },
    { name: 'user status missing', filters: { userStatus: ['ACTIVE'] }, user: business, expected: false },
    // userTags
    { name: 'user tags OR: one matches', filters: { userTags: { tags: { tier: ['gold'], vip: ['yes'] } } }, user: consumer, expected: true },
    { name: 'user tags OR: none matches', filters: { userTags: { tags: { tier: ['silver'] } } }, user: consumer, expected: false },
    {
      name: 'user tags AND: all keys match',
      filters: { userTags: { tags: { tier: ['gold'], region: ['eu', 'us'] }, useAndLogic: true } },
      user: consumer,
      expected: true,
    },
    {
      name: 'user tags AND: one key missing',
      filters: { userTags: { tags: { tier: ['gold'], vip: ['yes'] }, useAndLogic: true } },
      user: consumer,
      expected: false,
    },
    { name: 'user tags: user without tags', filters: { userTags: { tags: { tier: ['gold'] } } }, user: business, expected: false },
    // several user filters: AND on the same user
    { name: 'two user filters on the same user pass', filters: { userType: 'CONSUMER', kycStatus: ['SUCCESSFUL'] }, user: consumer, expected: true },
    { name: 'two user filters, one fails', filters: { userType: 'CONSUMER', kycStatus: ['FAILED'] }, user: consumer, expected: false },
  ];
  it.each(userRows)('user filter: $name → $expected', ({ filters, user, timestamp, expected }) => {
    expect(senderPasses(filters, user, makeTransaction(timestamp === undefined ? {} : { timestamp }))).toBe(expected);
  });

  /* -------------------------------------------------------------------------------------------- */
  /* combination of groups and directions                                                         */
  /* -------------------------------------------------------------------------------------------- */

  const decisionRows: {
    name: string;
    filters: RuleFilters;
    originUser: RuleUser | null;
    destinationUser: RuleUser | null;
    transaction?: Transaction;
    expected: FilterDecision;
  }[] = [
    { name: 'no filters', filters: {}, originUser: null, destinationUser: null, expected: ALL },
    {
      name: 'only empty values',
      filters: { transactionTypes: [], userIds: [], transactionTags: { tags: {} }, userAgeRange: {} },
      originUser: null,
      destinationUser: null,
      expected: ALL,
    },
    {
      name: 'checkDirection ORIGIN',
      filters: { checkDirection: 'ORIGIN' },
      originUser: consumer,
      destinationUser: business,
      expected: { run: true, origin: true, destination: false },
    },
    {
      name: 'checkDirection DESTINATION',
      filters: { checkDirection: 'DESTINATION' },
      originUser: null,
      destinationUser: null,
      expected: { run: true, origin: false, destination: true },
    },
    {
      name: 'sender passes, receiver fails',
      filters: { userType: 'CONSUMER' },
      originUser: consumer,
      destinationUser: business,
      expected: { run: true, origin: true, destination: false },
    },
    {
      name: 'sender fails, receiver passes',
      filters: { userType: 'BUSINESS' },
      originUser: consumer,
      destinationUser: business,
      expected: { run: true, origin: false, destination: true },
    },
    { name: 'both sides pass', filters: { userIds: ['c-1', 'b-1'] }, originUser: consumer, destinationUser: business, expected: ALL },
    { name: 'both sides fail', filters: { userIds: ['x'] }, originUser: consumer, destinationUser: business, expected: NONE },
    { name: 'no users at all with a user filter', filters: { userIds: ['x'] }, originUser: null, destinationUser: null, expected: NONE },
    {
      name: 'missing receiver with a user filter',
      filters: { userType: 'CONSUMER' },
      originUser: consumer,
      destinationUser: null,
      expected: { run: true, origin: true, destination: false },
    },
    {
      name: 'transaction filter fails although users pass',
      filters: { transactionTypes: ['DEPOSIT'], userIds: ['c-1'] },
      originUser: consumer,
      destinationUser: business,
      expected: NONE,
    },
    {
      name: 'checkDirection ORIGIN but only the receiver passes',
      filters: { checkDirection: 'ORIGIN', userType: 'BUSINESS' },
      originUser: consumer,
      destinationUser: business,
      expected: { run: true, origin: false, destination: false },
    },
    {
      name: 'checkDirection DESTINATION and the receiver passes',
      filters: { checkDirection: 'DESTINATION', userType: 'BUSINESS' },
      originUser: consumer,
      destinationUser: business,
      expected: { run: true, origin: false, destination: true },
    },
    {
      name: 'checkDirection with failing transaction filter',
      filters: { checkDirection: 'ORIGIN', transactionTypes: ['DEPOSIT'] },
      originUser: consumer,
      destinationUser: business,
      expected: NONE,
    },
  ];
  it.each(decisionRows)('decision: $name', ({ filters, originUser, destinationUser, transaction, expected }) => {
    expect(evaluateRuleFilters(filters, { transaction: transaction ?? makeTransaction(), originUser, destinationUser })).toEqual(expected);
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* hasActiveFilters / compileRuleFilters                                                          */
/* ---------------------------------------------------------------------------------------------- */

describe('hasActiveFilters', () => {
  const rows: { name: string; input: RuleFilters; expected: boolean }[] = [
    { name: 'empty object', input: {}, expected: false },
    { name: 'empty arrays', input: { transactionTypes: [], userIds: [], kycStatus: [] }, expected: false },
    {
      name: 'empty objects',
      input: { originPaymentFilters: {}, transactionAmountRange: {}, transactionTimeRange24hr: {}, userAgeRange: {}, whitelistUsers: {} },
      expected: false,
    },
    {
      name: 'nested empties',
      input: { originPaymentFilters: { paymentMethods: [], walletType: '' }, userTags: { tags: { k: [] }, useAndLogic: true } },
      expected: false,
    },
    { name: 'empty historical values', input: { paymentMethodsHistorical: [], transactionAmountRangeHistorical: {} }, expected: false },
    { name: 'one transaction filter', input: { transactionTypes: ['TRANSFER'] }, expected: true },
    { name: 'one user filter', input: { userType: 'BUSINESS' }, expected: true },
    { name: 'a currency without bounds', input: { transactionAmountRange: { EUR: {} } }, expected: true },
    { name: 'checkDirection alone', input: { checkDirection: 'ORIGIN' }, expected: true },
    { name: 'age with zero units', input: { userAgeRange: { minAge: { units: 0, granularity: 'day' } } }, expected: true },
  ];
  it.each(rows)('$name → $expected', ({ input, expected }) => {
    expect(hasActiveFilters(input)).toBe(expected);
  });
});

describe('compileRuleFilters', () => {
  it('returns a reusable function that gives the same decisions as evaluateRuleFilters', () => {
    const filters: RuleFilters = { transactionTypes: ['TRANSFER'], userType: 'CONSUMER', checkDirection: 'ORIGIN' };
    const check = compileRuleFilters(filters);
    expect(check.active).toBe(true);
    for (const transaction of [makeTransaction(), makeTransaction({ type: 'DEPOSIT' })]) {
      for (const [originUser, destinationUser] of [
        [consumer, business],
        [business, consumer],
        [null, consumer],
      ] as const) {
        const context = { transaction, originUser, destinationUser };
        expect(check(context)).toEqual(evaluateRuleFilters(filters, context));
      }
    }
  });

  it('reads the filters only when compiling (later changes to the object do not leak in)', () => {
    const filters = { transactionTypes: ['TRANSFER'] };
    const check = compileRuleFilters(filters);
    filters.transactionTypes.push('DEPOSIT');
    expect(check({ transaction: makeTransaction({ type: 'DEPOSIT' }), originUser: null, destinationUser: null }).run).toBe(false);
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* properties                                                                                     */
/* ---------------------------------------------------------------------------------------------- */

const COUNTRIES = ['DE', 'FR', 'GB', 'US'] as const;
const CURRENCIES = ['EUR', 'USD'] as const;
const TYPES = ['TRANSFER', 'DEPOSIT', 'WITHDRAWAL'] as const;
const TAG_KEYS = ['a', 'b'] as const;
const TAG_VALUES = ['1', '2'] as const;

const tagsArb = fc.array(fc.record({ key: fc.constantFrom(...TAG_KEYS), value: fc.constantFrom(...TAG_VALUES) }), { maxLength: 3 });
const amountDetailsArb = fc.record(
  {
    transactionAmount: fc.integer({ min: 0, max: 200_000 }).map((cents) => cents / 100),
    transactionCurrency: fc.constantFrom(...CURRENCIES),
    country: fc.constantFrom(...COUNTRIES),
  },
  { requiredKeys: ['transactionAmount', 'transactionCurrency'] },
);
const paymentDetailsArb = fc.oneof(
  fc.record(
    {
      method: fc.constant('CARD' as const),
      cardIssuedCountry: fc.constantFrom(...COUNTRIES),
      paymentChannel: fc.constantFrom('ONLINE', 'POS'),
      merchantDetails: fc.record({ MCC: fc.constantFrom('5411', '6011') }, { requiredKeys: [] }),
    },
    { requiredKeys: ['method'] },
  ),
  fc.record({ method: fc.constant('WALLET' as const), walletType: fc.constantFrom('paypal', 'venmo') }, { requiredKeys: ['method'] }),
  fc.record({ method: fc.constant('IBAN' as const), IBAN: fc.constant('DE89370400440532013000') }),
);
const transactionArb: fc.Arbitrary<Transaction> = fc.record(
  {
    type: fc.constantFrom(...TYPES),
    transactionId: fc.constant('t-1'),
    timestamp: fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2026, 0, 1) }),
    transactionState: fc.constantFrom(...TRANSACTION_STATES),
    originAmountDetails: amountDetailsArb,
    destinationAmountDetails: amountDetailsArb,
    originPaymentDetails: paymentDetailsArb,
    destinationPaymentDetails: paymentDetailsArb,
    productType: fc.constantFrom('gift-card', 'loan'),
    tags: tagsArb,
  },
  { requiredKeys: ['type', 'transactionId', 'timestamp'] },
);

const dateArb = fc.integer({ min: Date.UTC(1950, 0, 1), max: Date.UTC(2025, 0, 1) }).map((ms) => new Date(ms).toISOString().slice(0, 10));
const consumerProfileArb = fc.record(
  {
    createdTimestamp: fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2026, 0, 1) }),
    userDetails: fc.record(
      { dateOfBirth: dateArb, countryOfResidence: fc.constantFrom(...COUNTRIES), countryOfNationality: fc.constantFrom(...COUNTRIES) },
      { requiredKeys: [] },
    ),
    userSegment: fc.constantFrom('RETAIL', 'PROFESSIONAL'),
    acquisitionChannel: fc.constantFrom('ORGANIC', 'PAID'),
    kycStatusDetails: fc.record({ status: fc.constantFrom('SUCCESSFUL', 'FAILED') }),
    userStateDetails: fc.record({ state: fc.constantFrom('ACTIVE', 'BLOCKED') }),
    tags: tagsArb,
  },
  { requiredKeys: ['createdTimestamp'] },
);
const businessProfileArb = fc.record(
  {
    createdTimestamp: fc.integer({ min: Date.UTC(2015, 0, 1), max: Date.UTC(2026, 0, 1) }),
    legalEntity: fc.record({
      companyGeneralDetails: fc.record({ userSegment: fc.constantFrom('SMB', 'LARGE') }, { requiredKeys: [] }),
      companyRegistrationDetails: fc.record({ registrationCountry: fc.constantFrom(...COUNTRIES), dateOfRegistration: dateArb }, { requiredKeys: [] }),
    }),
    tags: tagsArb,
  },
  { requiredKeys: ['createdTimestamp', 'legalEntity'] },
);
const userIdArb = fc.constantFrom('u-1', 'u-2', 'u-3');
const userArb: fc.Arbitrary<RuleUser | null> = fc.oneof(
  fc.constant(null),
  userIdArb.map((id) => makeUser(id, null, null)),
  fc.tuple(userIdArb, consumerProfileArb).map(([id, profile]) => makeUser(id, 'CONSUMER', { userId: id, ...profile })),
  fc.tuple(userIdArb, businessProfileArb).map(([id, profile]) => makeUser(id, 'BUSINESS', { userId: id, ...profile })),
);

const list = <T>(arb: fc.Arbitrary<T>) => fc.uniqueArray(arb, { maxLength: 3 });
const timeArb = fc.record({ utcHours: fc.integer({ min: 0, max: 23 }), utcMinutes: fc.integer({ min: 0, max: 59 }) });
const timeRangeArb = fc
  .tuple(timeArb, timeArb)
  .filter(([a, b]) => a.utcHours !== b.utcHours || a.utcMinutes !== b.utcMinutes)
  .map(([startTime, endTime]) => ({ startTime, endTime }));
const ageArb = fc.record({ units: fc.integer({ min: 0, max: 40 }), granularity: fc.constantFrom('day' as const, 'month' as const, 'year' as const) });
type AgeValue = { units: number; granularity: 'day' | 'month' | 'year' };
/** Age ranges as validation accepts them: comparable bounds (months/years, or days/days) are ordered. */
const ageRangeArb = fc.record({ minAge: ageArb, maxAge: ageArb }, { requiredKeys: [] }).map((range) => {
  const { minAge, maxAge } = range;
  if (minAge === undefined || maxAge === undefined) return range;
  const inUnits = (age: AgeValue) => (age.granularity === 'year' ? age.units * 12 : age.units);
  const comparable = (minAge.granularity === 'day') === (maxAge.granularity === 'day');
  return comparable && inUnits(minAge) > inUnits(maxAge) ? { minAge: maxAge, maxAge: minAge } : range;
});
const tagsFilterArb = fc.record(
  { tags: fc.dictionary(fc.constantFrom(...TAG_KEYS), list(fc.constantFrom(...TAG_VALUES))), useAndLogic: fc.boolean() },
  { requiredKeys: [] },
);
const boundsArb = fc
  .tuple(fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }), fc.option(fc.integer({ min: 0, max: 200_000 }), { nil: undefined }))
  .map(([a, b]) => {
    const [low, high] = a !== undefined && b !== undefined && a > b ? [b, a] : [a, b];
    return { ...(low === undefined ? {} : { min: low / 100 }), ...(high === undefined ? {} : { max: high / 100 }) };
  });
const paymentFiltersArb = fc.record(
  {
    paymentMethods: list(fc.constantFrom('CARD' as const, 'WALLET' as const, 'IBAN' as const)),
    walletType: fc.constantFrom('', 'paypal', 'venmo'),
    cardIssuedCountries: list(fc.constantFrom(...COUNTRIES)),
    cardPaymentChannels: list(fc.constantFrom('ONLINE', 'POS')),
    mccCodes: list(fc.constantFrom('5411', '6011')),
  },
  { requiredKeys: [] },
);

/** Every transaction and user filter plus checkDirection (no historical ones), each key optional. */
const filtersArb: fc.Arbitrary<RuleFilters> = fc.record(
  {
    originPaymentFilters: paymentFiltersArb,
    destinationPaymentFilters: paymentFiltersArb,
    transactionTypes: list(fc.constantFrom(...TYPES)),
    transactionStates: list(fc.constantFrom(...TRANSACTION_STATES)),
    originTransactionCountries: list(fc.constantFrom(...COUNTRIES)),
    destinationTransactionCountries: list(fc.constantFrom(...COUNTRIES)),
    transactionAmountRange: fc.dictionary(fc.constantFrom(...CURRENCIES), boundsArb),
    productTypes: list(fc.constantFrom('gift-card', 'loan')),
    transactionTags: tagsFilterArb,
    transactionTimeRange24hr: timeRangeArb,
    checkDirection: fc.constantFrom('ORIGIN' as const, 'DESTINATION' as const),
    userType: fc.constantFrom('CONSUMER' as const, 'BUSINESS' as const),
    consumerUserSegments: list(fc.constantFrom('RETAIL' as const, 'PROFESSIONAL' as const)),
    businessUserSegments: list(fc.constantFrom('SMB' as const, 'LARGE' as const)),
    userAgeRange: ageRangeArb,
    userCreationAgeRange: ageRangeArb,
    whitelistUsers: fc.record({ userIds: list(userIdArb) }, { requiredKeys: [] }),
    userIds: list(userIdArb),
    userResidenceCountries: list(fc.constantFrom(...COUNTRIES)),
    userNationalityCountries: list(fc.constantFrom(...COUNTRIES)),
    userRegistrationCountries: list(fc.constantFrom(...COUNTRIES)),
    acquisitionChannels: list(fc.constantFrom('ORGANIC' as const, 'PAID' as const)),
    kycStatus: list(fc.constantFrom('SUCCESSFUL' as const, 'FAILED' as const)),
    userStatus: list(fc.constantFrom('ACTIVE' as const, 'BLOCKED' as const)),
    userTags: tagsFilterArb,
  },
  { requiredKeys: [] },
);

/** `filters` and a copy with only some of its keys (a subset: fewer filters). */
const filtersWithSubsetArb = filtersArb.chain((filters) =>
  fc.subarray(Object.keys(filters)).map((kept) => {
    const subset: Record<string, unknown> = {};
    for (const key of kept) subset[key] = (filters as Record<string, unknown>)[key];
    return { filters, subset: subset as RuleFilters };
  }),
);

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Whether `a ≤ b` pointwise, false < true. */
function impliesEach(a: FilterDecision, b: FilterDecision): boolean {
  return (!a.run || b.run) && (!a.origin || b.origin) && (!a.destination || b.destination);
}

describe('properties', () => {
  test.prop([transactionArb, userArb, userArb])('empty filters always pass every side and never mutate inputs', (transaction, originUser, destinationUser) => {
    const context = { transaction, originUser, destinationUser };
    const before = structuredClone(context);
    const filters = deepFreeze({});
    expect(evaluateRuleFilters(filters, deepFreeze(context))).toEqual(ALL);
    expect(context).toEqual(before);
  });

  test.prop([filtersArb])('generated filters are valid filters', (filters) => {
    expect(validationDetails(filters)).toBe('valid');
  });

  test.prop([filtersArb, transactionArb, userArb, userArb])(
    'evaluation is pure: frozen inputs, same answer twice',
    (filters, transaction, originUser, destinationUser) => {
      const context = deepFreeze({ transaction, originUser, destinationUser });
      const frozenFilters = deepFreeze(filters);
      const snapshot = structuredClone({ filters, context });
      const first = evaluateRuleFilters(frozenFilters, context);
      expect(evaluateRuleFilters(frozenFilters, context)).toEqual(first);
      expect(compileRuleFilters(frozenFilters)(context)).toEqual(first);
      expect({ filters, context }).toEqual(snapshot);
    },
  );

  test.prop([filtersWithSubsetArb, transactionArb, userArb, userArb])(
    'adding filters can only turn true into false (monotonicity)',
    ({ filters, subset }, transaction, originUser, destinationUser) => {
      const context = { transaction, originUser, destinationUser };
      expect(impliesEach(evaluateRuleFilters(filters, context), evaluateRuleFilters(subset, context))).toBe(true);
    },
  );

  test.prop([filtersArb, transactionArb, userArb, userArb])(
    'decisions are consistent: a kept side implies run; no active filter implies all pass',
    (filters, transaction, originUser, destinationUser) => {
      const decision = evaluateRuleFilters(filters, { transaction, originUser, destinationUser });
      if (decision.origin || decision.destination) expect(decision.run).toBe(true);
      if (!hasActiveFilters(filters)) expect(decision).toEqual(ALL);
    },
  );

  test.prop([timeRangeArb, fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2026, 0, 1) })])(
    'a time range and its swapped range split the day: exactly one contains any instant',
    ({ startTime, endTime }, timestamp) => {
      const transaction = makeTransaction({ timestamp });
      const inRange = runOn({ transactionTimeRange24hr: { startTime, endTime } }, transaction);
      const inComplement = runOn({ transactionTimeRange24hr: { startTime: endTime, endTime: startTime } }, transaction);
      expect(inRange).not.toBe(inComplement);
    },
  );

  test.prop([fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 100_000 }), fc.integer({ min: 0, max: 100_000 })])(
    'an amount passes its range exactly when min ≤ amount ≤ max in minor units',
    (minCents, maxCents, amountCents) => {
      const filters: RuleFilters = { transactionAmountRange: { EUR: { min: minCents / 100, max: maxCents / 100 } } };
      const expected = minCents <= amountCents && amountCents <= maxCents;
      expect(runOn(filters, makeTransaction(amount(amountCents / 100)))).toBe(expected);
    },
  );
});
