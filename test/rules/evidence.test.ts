/**
 * The shape of each rule family's evidence (`ruleHitMeta.evidence`, docs/evidence.md), through the
 * engine: per row, a few past transactions, then the current one, whose hit of the row's rule must
 * carry exactly the expected evidence. Exactness over random histories is
 * test/rules/evidence-oracle.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider } from '../../src/index.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';

const ROLLING_HOUR = { units: 1, granularity: 'hour', rollingBasis: true };
const HOUR_WINDOW = { start: T0 - HOUR, end: T0, units: 1, granularity: 'hour', rolling: true };
const eur = (amount: number) => ({ transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' });
const card = (fingerprint: string) => ({ method: 'CARD', cardFingerprint: fingerprint });

interface Row {
  name: string;
  instance: Record<string, unknown>;
  /** Lists stored before the instance is created (`engine.putList(id, input)`). */
  lists?: [string, Record<string, unknown>][];
  /** Users stored before the instance is created (`engine.createUser`). */
  users?: Record<string, unknown>[];
  past: Record<string, unknown>[];
  current: Record<string, unknown>;
  /** The evidence of the current transaction's hit, in full. */
  expected: unknown[];
}

const rows: Row[] = [
  {
    name: 'R-2 amount threshold: the amount and the threshold in its currency, ≥',
    instance: { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } },
    past: [],
    current: { transactionId: 'c', originAmountDetails: eur(1000.5) },
    expected: [
      { direction: 'ORIGIN', kind: 'amount', value: '1000.5', comparison: '>=', limit: '1000', currency: 'EUR' },
      { direction: 'DESTINATION', kind: 'amount', value: '1000.5', comparison: '>=', limit: '1000', currency: 'EUR' },
    ],
  },
  {
    name: 'R-14 listed value: the country and the list parameter it is in, one side only',
    instance: { ruleId: 'R-14', parameters: { highRiskCountries: ['FR'] } },
    past: [],
    current: { transactionId: 'c' },
    expected: [{ direction: 'DESTINATION', kind: 'country', value: 'FR', comparison: 'in', limit: '/parameters/highRiskCountries' }],
  },
  {
    name: 'R-6 listed value: the origin currency',
    instance: { ruleId: 'R-6', parameters: { highRiskCurrencies: ['EUR'] } },
    past: [],
    current: { transactionId: 'c', destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'USD' } },
    expected: [{ direction: 'ORIGIN', kind: 'currency', value: 'EUR', comparison: 'in', limit: '/parameters/highRiskCurrencies' }],
  },
  {
    name: 'R-22 listed value: the card-issuing country of the side whose card it is',
    instance: { ruleId: 'R-22', parameters: { blacklistedCountries: ['RU'] } },
    past: [],
    current: { transactionId: 'c', destinationPaymentDetails: { method: 'CARD', cardFingerprint: 'fp-1', cardIssuedCountry: 'RU' } },
    expected: [{ direction: 'DESTINATION', kind: 'cardIssuedCountry', value: 'RU', comparison: 'in', limit: '/parameters/blacklistedCountries' }],
  },
  {
    name: 'R-87 listed value: the IP country of each side on the list',
    instance: { ruleId: 'R-87', parameters: { highRiskCountries: ['RU', 'SY'] } },
    past: [],
    current: { transactionId: 'c', originDeviceData: { ipCountry: 'RU' }, destinationDeviceData: { ipCountry: 'SY' } },
    expected: [
      { direction: 'ORIGIN', kind: 'ipCountry', value: 'RU', comparison: 'in', limit: '/parameters/highRiskCountries' },
      { direction: 'DESTINATION', kind: 'ipCountry', value: 'SY', comparison: 'in', limit: '/parameters/highRiskCountries' },
    ],
  },
  {
    name: 'R-13 listed value: the list entry as configured (trimmed), not the transaction’s spelling',
    instance: { ruleId: 'R-13', parameters: { merchantNames: ['other', ' Lucky Casino '] } },
    past: [],
    current: { transactionId: 'c', destinationPaymentDetails: { method: 'WALLET', walletType: 'x', walletId: 'w-1', name: 'LUCKY CASINO' } },
    expected: [{ direction: 'DESTINATION', kind: 'walletName', value: 'Lucky Casino', comparison: 'in', limit: '/parameters/merchantNames' }],
  },
  {
    name: 'R-24 listed value: the first matching keyword as configured, on both sides',
    instance: { ruleId: 'R-24', parameters: { keywords: ['Dirty Bomb', 'gun'] } },
    past: [],
    current: { transactionId: 'c', reference: 'for the dirty-bomb and a gun' },
    expected: ['ORIGIN', 'DESTINATION'].map((direction) => ({
      direction,
      kind: 'keyword',
      value: 'Dirty Bomb',
      comparison: 'in',
      limit: '/parameters/keywords',
    })),
  },
  {
    name: 'R-129 listed value: the masked identifier, its method and the list of that method',
    instance: { ruleId: 'R-129', parameters: { blacklistedIBANPaymentDetails: [{ IBAN: 'DE89 3704 0044 0532 0130 00' }] } },
    past: [],
    current: { transactionId: 'c', originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000' } },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'paymentDetails',
        method: 'IBAN',
        value: '****3000',
        comparison: 'in',
        limit: '/parameters/blacklistedIBANPaymentDetails',
      },
    ],
  },
  {
    name: 'R-132 listed value: the value, where the transaction holds it, and the list by parameter and id',
    instance: { ruleId: 'R-132', parameters: { blacklistId: 'bl-1' } },
    lists: [['bl-1', { listType: 'BLACKLIST', subtype: 'IP_ADDRESS', items: ['10.0.0.1'] }]],
    past: [],
    current: { transactionId: 'c', destinationDeviceData: { ipAddress: '10.0.0.1' } },
    expected: [
      {
        direction: 'DESTINATION',
        kind: 'listedValue',
        field: 'IP_ADDRESS',
        path: '/destinationDeviceData/ipAddress',
        value: '10.0.0.1',
        comparison: 'in',
        limit: '/parameters/blacklistId',
        listId: 'bl-1',
      },
    ],
  },
  {
    name: 'R-132 listed value: an account number is masked as R-129 masks it',
    instance: { ruleId: 'R-132', parameters: { blacklistId: 'bl-1' } },
    lists: [['bl-1', { listType: 'BLACKLIST', subtype: 'IBAN_NUMBER', items: ['DE89370400440532013000'] }]],
    past: [],
    current: { transactionId: 'c', originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000' } },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'listedValue',
        field: 'IBAN_NUMBER',
        path: '/originPaymentDetails/IBAN',
        value: '****3000',
        comparison: 'in',
        limit: '/parameters/blacklistId',
        listId: 'bl-1',
      },
    ],
  },
  {
    name: 'R-3 new value: no earlier sent transaction went to the country, and the history ≥ initialTransactions',
    instance: { ruleId: 'R-3', parameters: { initialTransactions: 1 } },
    past: [{ transactionId: 'p1', timestamp: T0 - DAY }],
    current: { transactionId: 'c', destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'IT' } },
    expected: [
      { direction: 'ORIGIN', kind: 'seen', field: 'counterpartyCountry', fieldValue: 'IT', value: 0, comparison: '=', limit: 0 },
      { direction: 'ORIGIN', kind: 'history', value: 1, comparison: '>=', limit: 1 },
    ],
  },
  {
    name: 'R-4 new value: the new currency on each side that never used it',
    instance: { ruleId: 'R-4', parameters: { initialTransactions: 2 } },
    past: [
      { transactionId: 'p1', timestamp: T0 - 2 * DAY },
      { transactionId: 'p2', timestamp: T0 - DAY },
    ],
    current: {
      transactionId: 'c',
      originAmountDetails: { transactionAmount: 100, transactionCurrency: 'USD' },
      destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'USD' },
    },
    expected: ['ORIGIN', 'DESTINATION'].flatMap((direction) => [
      { direction, kind: 'seen', field: 'currency', fieldValue: 'USD', value: 0, comparison: '=', limit: 0 },
      { direction, kind: 'history', value: 2, comparison: '>=', limit: 2 },
    ]),
  },
  {
    name: 'R-88 unexpected IP country: never sent from it, not a profile country, and the amount ≥ the threshold when set',
    instance: { ruleId: 'R-88', parameters: { transactionAmountThreshold: { EUR: 50 } } },
    users: [{ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { countryOfResidence: 'DE', countryOfNationality: 'FR' } }],
    past: [{ transactionId: 'p1', timestamp: T0 - DAY, originDeviceData: { ipCountry: 'DE' } }],
    current: { transactionId: 'c', originDeviceData: { ipCountry: 'BR' } },
    expected: [
      { direction: 'ORIGIN', kind: 'seen', field: 'ipCountry', fieldValue: 'BR', value: 0, comparison: '=', limit: 0 },
      { direction: 'ORIGIN', kind: 'profileCountry', field: 'ipCountry', fieldValue: 'BR', value: 0, comparison: '=', limit: 0 },
      { direction: 'ORIGIN', kind: 'amount', value: '100', comparison: '>=', limit: '50', currency: 'EUR' },
    ],
  },
  {
    name: 'R-8 low value: the last N sent are all in range: N ≥ lowTransactionCount, their smallest ≥ min and largest ≤ max',
    instance: { ruleId: 'R-8', parameters: { lowTransactionValues: { EUR: { min: 90, max: 100 } }, lowTransactionCount: 3 } },
    past: [
      { transactionId: 'p0', timestamp: T0 - 3 * DAY, originAmountDetails: eur(20) },
      { transactionId: 'p1', timestamp: T0 - 2 * DAY, originAmountDetails: eur(95.5) },
      { transactionId: 'p2', timestamp: T0 - DAY, originAmountDetails: eur(99) },
    ],
    current: { transactionId: 'c' },
    expected: [
      { direction: 'ORIGIN', kind: 'lowValueCount', value: 3, comparison: '>=', limit: 3 },
      { direction: 'ORIGIN', kind: 'lowValueMin', value: '95.5', comparison: '>=', limit: '90', currency: 'EUR' },
      { direction: 'ORIGIN', kind: 'lowValueMax', value: '100', comparison: '<=', limit: '100', currency: 'EUR' },
    ],
  },
  {
    name: 'R-7 low value: the received side, with the window when one is set and only the bound that is set',
    instance: {
      ruleId: 'R-7',
      parameters: { lowTransactionValues: { EUR: { max: 150 } }, lowTransactionCount: 2, timeWindow: ROLLING_HOUR },
    },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, destinationAmountDetails: eur(120) }],
    current: { transactionId: 'c', destinationAmountDetails: eur(80) },
    expected: [
      { direction: 'DESTINATION', kind: 'lowValueCount', value: 2, comparison: '>=', limit: 2, window: HOUR_WINDOW },
      { direction: 'DESTINATION', kind: 'lowValueMax', value: '120', comparison: '<=', limit: '150', currency: 'EUR' },
    ],
  },
  {
    name: 'R-125 unsuccessful states: the count in the states > the threshold’s share of the window (exact decimal), and the total ≥ minimumTransactions',
    instance: {
      ruleId: 'R-125',
      parameters: {
        transactionStates: ['REFUNDED'],
        threshold: 33.33,
        minimumTransactions: 2,
        timeWindow: ROLLING_HOUR,
        checkSender: 'sending',
        checkReceiver: 'none',
      },
    },
    past: [
      { transactionId: 'p0', timestamp: T0 - 2 * HOUR, transactionState: 'REFUNDED' },
      { transactionId: 'p1', timestamp: T0 - 10, transactionState: 'REFUNDED' },
    ],
    current: { transactionId: 'c', transactionState: 'SUCCESSFUL' },
    expected: [
      { direction: 'ORIGIN', kind: 'stateCount', value: 1, comparison: '>', limit: '0.6666', window: HOUR_WINDOW, transactionCount: 2 },
      { direction: 'ORIGIN', kind: 'transactionCount', value: 2, comparison: '>=', limit: 2, window: HOUR_WINDOW },
    ],
  },
  {
    name: 'R-124 round share: the round count > the limit’s share of the window (exact decimal), and the total > initialTransactions',
    instance: {
      ruleId: 'R-124',
      parameters: { timeWindow: ROLLING_HOUR, patternPercentageLimit: 50, initialTransactions: 1, checkSender: 'sending', checkReceiver: 'none' },
    },
    past: [
      { transactionId: 'p1', timestamp: T0 - 20 },
      { transactionId: 'p2', timestamp: T0 - 10, originAmountDetails: eur(150.5) },
    ],
    current: { transactionId: 'c', originAmountDetails: eur(300) },
    expected: [
      { direction: 'ORIGIN', kind: 'roundCount', value: 2, comparison: '>', limit: '1.5', window: HOUR_WINDOW, transactionCount: 3 },
      { direction: 'ORIGIN', kind: 'transactionCount', value: 3, comparison: '>', limit: 1, window: HOUR_WINDOW },
    ],
  },
  {
    name: 'R-123 distinct counterparty countries > the limit over the window (no ids: the rule reads only the distinct count)',
    instance: { ruleId: 'R-123', parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' } },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, destinationAmountDetails: { ...eur(100), country: 'IT' } }],
    current: { transactionId: 'c' },
    expected: [{ direction: 'ORIGIN', kind: 'distinct', field: 'counterpartyCountry', value: 2, comparison: '>', limit: 1, window: HOUR_WINDOW }],
  },
  {
    name: 'R-131 past period: count 1 > multiplier × count 2 (exact decimal), both windows, and each optional condition that held',
    instance: {
      ruleId: 'R-131',
      parameters: {
        multiplierThreshold: 1.5,
        timeWindow1: ROLLING_HOUR,
        timeWindow2: { units: 3, granularity: 'hour', rollingBasis: true },
        minTransactionsInTimeWindow2: 1,
        initialTransactions: 2,
        checkSender: 'sending',
        checkReceiver: 'none',
      },
    },
    past: [
      { transactionId: 'p0', timestamp: T0 - 2 * HOUR },
      { transactionId: 'p1', timestamp: T0 - 10 },
    ],
    current: { transactionId: 'c' },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'periodCount',
        value: 2,
        comparison: '>',
        limit: '1.5',
        multiplier: 1.5,
        window: HOUR_WINDOW,
        transactionCount: 2,
        referenceWindow: { start: T0 - 3 * HOUR, end: T0, units: 3, granularity: 'hour', rolling: true },
        referenceCount: 1,
        referenceExcludesWindow: true,
      },
      {
        direction: 'ORIGIN',
        kind: 'referenceCount',
        value: 1,
        comparison: '>=',
        limit: 1,
        referenceWindow: { start: T0 - 3 * HOUR, end: T0, units: 3, granularity: 'hour', rolling: true },
      },
      { direction: 'ORIGIN', kind: 'history', value: 3, comparison: '>=', limit: 2 },
    ],
  },
  {
    name: 'R-117 amount pattern: the first listed pattern the amount’s text ends with, its decimals included when checkDecimal',
    instance: { ruleId: 'R-117', parameters: { patterns: ['5', '999.99', '99'], checkDecimal: true } },
    past: [],
    current: { transactionId: 'c', originAmountDetails: eur(1999.99) },
    expected: [
      { direction: 'ORIGIN', kind: 'amountPattern', value: '999.99', comparison: 'in', limit: '/parameters/patterns', amount: '1999.99', currency: 'EUR' },
    ],
  },
  {
    name: 'R-117 amount pattern: without checkDecimal, the integer part it was compared with',
    instance: { ruleId: 'R-117', parameters: { patterns: ['999.99'] } },
    past: [],
    current: { transactionId: 'c', originAmountDetails: eur(1999.5) },
    expected: [
      { direction: 'ORIGIN', kind: 'amountPattern', value: '999.99', comparison: 'in', limit: '/parameters/patterns', amount: '1999', currency: 'EUR' },
    ],
  },
  {
    name: 'R-118 name mismatch: the distance > the allowed share of the longer name (exact decimal), without the names',
    instance: { ruleId: 'R-118', parameters: { allowedDistancePercentage: 10 } },
    users: [{ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { name: { firstName: 'John', lastName: 'Smith' } } }],
    past: [],
    current: { transactionId: 'c', originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000', name: 'Jane Smith' } },
    expected: [{ direction: 'ORIGIN', kind: 'nameDistance', method: 'IBAN', value: 3, comparison: '>', limit: '1', length: 10 }],
  },
  {
    name: 'R-118 name mismatch: the empty name, its length 0',
    instance: { ruleId: 'R-118', parameters: { allowedDistancePercentage: 10 } },
    users: [{ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { name: { firstName: 'John', lastName: 'Smith' } } }],
    past: [],
    current: { transactionId: 'c', originPaymentDetails: { method: 'IBAN', IBAN: 'DE89370400440532013000', name: '...' } },
    expected: [{ direction: 'ORIGIN', kind: 'nameLength', field: 'accountName', method: 'IBAN', value: 0, comparison: '=', limit: 0 }],
  },
  {
    name: 'R-30 velocity: count > limit over the window, newest ids first, the current one included',
    instance: { ruleId: 'R-30', parameters: { transactionsLimit: 2, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' } },
    past: [
      { transactionId: 'p0', timestamp: T0 - HOUR - 1 },
      { transactionId: 'p1', timestamp: T0 - HOUR },
      { transactionId: 'p2', timestamp: T0 - 5 },
    ],
    current: { transactionId: 'c' },
    expected: [
      { direction: 'ORIGIN', kind: 'count', value: 3, comparison: '>', limit: 2, window: HOUR_WINDOW, transactionCount: 3, transactionIds: ['c', 'p2', 'p1'] },
    ],
  },
  {
    name: 'R-119 pair velocity: the pair count, the same evidence on both sides',
    instance: { ruleId: 'R-119', parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR } },
    past: [
      { transactionId: 'p1', timestamp: T0 - 10 },
      { transactionId: 'other', timestamp: T0 - 9, destinationUserId: 'carol' },
    ],
    current: { transactionId: 'c' },
    expected: ['ORIGIN', 'DESTINATION'].map((direction) => ({
      direction,
      kind: 'pairCount',
      value: 2,
      comparison: '>',
      limit: 1,
      window: HOUR_WINDOW,
      transactionCount: 2,
      transactionIds: ['c', 'p1'],
    })),
  },
  {
    name: 'R-94 identifier frequency: count ≥ threshold over the identifier’s transactions',
    instance: { ruleId: 'R-94', parameters: { threshold: 2, timeWindow: ROLLING_HOUR, checkSender: 'all', checkReceiver: 'none' } },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, originUserId: 'dave', originPaymentDetails: card('fp-1') }],
    current: { transactionId: 'c', originPaymentDetails: card('fp-1') },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'identifierCount',
        value: 2,
        comparison: '>=',
        limit: 2,
        window: HOUR_WINDOW,
        transactionCount: 2,
        transactionIds: ['c', 'p1'],
      },
    ],
  },
  {
    name: 'R-69 volume: the volume ≥ the threshold, the upper bound ≤ and the history ≥ initialTransactions',
    instance: {
      ruleId: 'R-69',
      parameters: {
        transactionVolumeThreshold: { EUR: 250 },
        transactionVolumeUpperThreshold: { EUR: 1000 },
        initialTransactions: 2,
        timeWindow: ROLLING_HOUR,
        checkSender: 'sending',
        checkReceiver: 'none',
      },
    },
    past: [
      { transactionId: 'p0', timestamp: T0 - 2 * HOUR, originAmountDetails: eur(5000) },
      { transactionId: 'p1', timestamp: T0 - 10, originAmountDetails: eur(150.25) },
    ],
    current: { transactionId: 'c', originAmountDetails: eur(100) },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'volume',
        value: '250.25',
        comparison: '>=',
        limit: '250',
        currency: 'EUR',
        window: HOUR_WINDOW,
        transactionCount: 2,
        transactionIds: ['c', 'p1'],
      },
      {
        direction: 'ORIGIN',
        kind: 'volume',
        value: '250.25',
        comparison: '<=',
        limit: '1000',
        currency: 'EUR',
        window: HOUR_WINDOW,
        transactionCount: 2,
        transactionIds: ['c', 'p1'],
      },
      { direction: 'ORIGIN', kind: 'history', value: 3, comparison: '>=', limit: 2 },
    ],
  },
  {
    name: 'R-126 pair volume: the volume ≥ the threshold and the pair count > transactionsLimit',
    instance: { ruleId: 'R-126', parameters: { transactionVolumeThreshold: { EUR: 200 }, transactionsLimit: 1, timeWindow: ROLLING_HOUR } },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, originAmountDetails: eur(100) }],
    current: { transactionId: 'c', originAmountDetails: eur(100) },
    expected: ['ORIGIN', 'DESTINATION'].flatMap((direction) => [
      {
        direction,
        kind: 'pairVolume',
        value: '200',
        comparison: '>=',
        limit: '200',
        currency: 'EUR',
        window: HOUR_WINDOW,
        transactionCount: 2,
        transactionIds: ['c', 'p1'],
      },
      { direction, kind: 'pairCount', value: 2, comparison: '>', limit: 1, window: HOUR_WINDOW, transactionCount: 2, transactionIds: ['c', 'p1'] },
    ]),
  },
  {
    name: 'R-55 distinct count: the distinct identifiers > the limit, with the window’s transactions',
    instance: { ruleId: 'R-55', parameters: { uniquePaymentIdentifiersCountThreshold: 1, timeWindow: ROLLING_HOUR } },
    past: [
      { transactionId: 'p1', timestamp: T0 - 20, originPaymentDetails: card('fp-1') },
      { transactionId: 'p2', timestamp: T0 - 10, originPaymentDetails: card('fp-1') },
    ],
    current: { transactionId: 'c', originPaymentDetails: card('fp-2') },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'distinct',
        field: 'paymentId',
        value: 2,
        comparison: '>',
        limit: 1,
        window: HOUR_WINDOW,
        transactionCount: 3,
        transactionIds: ['c', 'p2', 'p1'],
      },
    ],
  },
  {
    name: 'R-10 distinct counterparties: the distinct counterparties > the limit, on each side that hit',
    instance: { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: ROLLING_HOUR } },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, destinationUserId: 'carol' }],
    current: { transactionId: 'c' },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'distinct',
        field: 'counterparty',
        value: 2,
        comparison: '>',
        limit: 1,
        window: HOUR_WINDOW,
        transactionCount: 2,
        transactionIds: ['c', 'p1'],
      },
    ],
  },
  {
    name: 'R-41 outflow against inflow: the outflow ≥ the inflow in the base currency, with both counts',
    instance: {
      ruleId: 'R-41',
      parameters: {
        timeWindow: ROLLING_HOUR,
        outflowTransactionTypes: ['WITHDRAWAL'],
        inflowTransactionTypes: ['DEPOSIT'],
        outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
      },
    },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, type: 'DEPOSIT', originUserId: 'bank', destinationUserId: 'alice', destinationAmountDetails: eur(300) }],
    current: { transactionId: 'c', type: 'WITHDRAWAL', destinationUserId: 'bank', originAmountDetails: eur(300) },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'outflow',
        value: '300',
        comparison: '>=',
        limit: '300',
        currency: 'EUR',
        window: HOUR_WINDOW,
        outflowCount: 1,
        inflowCount: 1,
      },
    ],
  },
  {
    name: 'R-27 past period: the ratio of the two volumes ≥ the multiplier, with both windows and counts',
    instance: {
      ruleId: 'R-27',
      parameters: {
        period1: { units: 1, granularity: 'day', rollingBasis: true },
        period2: { units: 3, granularity: 'day', rollingBasis: true },
        multiplierThreshold: { currency: 'EUR', value: 200 },
        checkSender: 'sending',
        checkReceiver: 'none',
        excludePeriod1: true,
      },
    },
    past: [{ transactionId: 'p1', timestamp: T0 - 2 * DAY, originAmountDetails: eur(40) }],
    current: { transactionId: 'c', originAmountDetails: eur(100) },
    expected: [
      {
        direction: 'ORIGIN',
        kind: 'pastPeriod',
        value: '250.00',
        comparison: '>=',
        limit: 200,
        statistic1: '100.00 EUR',
        statistic2: '40.00 EUR',
        window: { start: T0 - DAY, end: T0, units: 1, granularity: 'day', rolling: true },
        transactionCount: 1,
        referenceWindow: { start: T0 - 3 * DAY, end: T0, units: 3, granularity: 'day', rolling: true },
        referenceCount: 1,
        referenceExcludesWindow: true,
      },
    ],
  },
  {
    name: 'R-77 matching count: the counterparty-country matches > the limit (no ids: not every newest transaction matches)',
    instance: {
      ruleId: 'R-77',
      parameters: { timeWindow: ROLLING_HOUR, transactionsLimit: 1, highRiskCountries: ['FR'], checkSender: 'sending', checkReceiver: 'none' },
    },
    past: [
      { transactionId: 'p1', timestamp: T0 - 20 },
      { transactionId: 'p2', timestamp: T0 - 10, destinationAmountDetails: { ...eur(100), country: 'IT' } },
    ],
    current: { transactionId: 'c' },
    expected: [{ direction: 'ORIGIN', kind: 'matchingCount', value: 2, comparison: '>', limit: 1, window: HOUR_WINDOW }],
  },
  {
    name: 'R-1 first transaction: no earlier sent transaction, and the amount ≥ the threshold when one is set',
    instance: { ruleId: 'R-1', parameters: { transactionAmountThreshold: { EUR: 50 } } },
    past: [{ transactionId: 'p1', timestamp: T0 - 10, originUserId: 'bob', destinationUserId: 'alice' }],
    current: { transactionId: 'c' },
    expected: [
      { direction: 'ORIGIN', kind: 'history', value: 0, comparison: '=', limit: 0 },
      { direction: 'ORIGIN', kind: 'amount', value: '100', comparison: '>=', limit: '50', currency: 'EUR' },
    ],
  },
  {
    name: 'R-5 dormancy: the time since the previous transaction > the period, in ms',
    instance: { ruleId: 'R-5', parameters: { dormancyPeriodDays: 30, checkDirection: 'sending' } },
    past: [{ transactionId: 'p1', timestamp: T0 - 31 * DAY }],
    current: { transactionId: 'c' },
    expected: [{ direction: 'ORIGIN', kind: 'dormancy', value: 31 * DAY, comparison: '>', limit: 30 * DAY, previousTimestamp: T0 - 31 * DAY }],
  },
];

describe('ruleHitMeta.evidence by rule family', () => {
  it.each(rows)('$name', async (row) => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    for (const [id, list] of row.lists ?? []) await engine.putList(id, list as never);
    for (const user of row.users ?? []) await engine.createUser(user as never);
    const instance = await engine.createRuleInstance(row.instance as never);
    for (const past of row.past) await engine.createTransaction(tx(past));
    const result = await engine.createTransaction(tx(row.current));
    const hit = result.hitRules.find((h) => h.ruleInstanceId === instance.id);
    expect(hit?.ruleHitMeta?.evidence).toEqual(row.expected);
    // The executed rule carries the same evidence, and the stored result too.
    expect(result.executedRules.find((r) => r.ruleInstanceId === instance.id)?.ruleHitMeta).toBe(hit?.ruleHitMeta);
    const stored = await engine.getTransaction(row.current.transactionId as string);
    expect(stored.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta?.evidence).toEqual(row.expected);
  });

  it('names the converted amount when the threshold is in another currency (R-2)', async () => {
    const { engine } = testEngine({ baseCurrency: 'EUR' });
    const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10 } } });
    const result = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1234.5, transactionCurrency: 'USD' } }));
    const evidence = result.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta?.evidence;
    expect(evidence?.[0]).toMatchObject({
      direction: 'ORIGIN',
      kind: 'amount',
      comparison: '>=',
      limit: '10',
      currency: 'EUR',
      convertedFrom: { value: '1234.5', currency: 'USD' },
    });
    expect(typeof evidence?.[0]?.value).toBe('string');
  });

  it('judges the low-value range in its own currency and names the base-currency amount it came from (R-8)', async () => {
    // 0.8 EUR per USD: 100 EUR is 125 USD.
    const { engine } = testEngine({ baseCurrency: 'EUR', rates: createFixedRateProvider({ USD: '1', EUR: '0.8' }) });
    const instance = await engine.createRuleInstance({ ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { max: 200 } }, lowTransactionCount: 1 } });
    const result = await engine.createTransaction(tx({ originAmountDetails: eur(100) }));
    expect(result.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta?.evidence).toEqual([
      { direction: 'ORIGIN', kind: 'lowValueCount', value: 1, comparison: '>=', limit: 1 },
      {
        direction: 'ORIGIN',
        kind: 'lowValueMax',
        value: '125',
        comparison: '<=',
        limit: '200',
        currency: 'USD',
        convertedFrom: { value: '100', currency: 'EUR' },
      },
    ]);
  });

  it('lists at most the 20 newest ids, with the whole count (R-30)', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 1, timeWindow: ROLLING_HOUR, checkSender: 'sending', checkReceiver: 'none' },
    });
    for (let i = 0; i < 30; i++) await engine.createTransaction(tx({ transactionId: `p${String(i).padStart(2, '0')}`, timestamp: T0 - 100 + i }));
    const result = await engine.createTransaction(tx({ transactionId: 'c' }));
    const [item] = result.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta?.evidence ?? [];
    expect(item?.transactionCount).toBe(31);
    expect(item?.transactionIds).toEqual(['c', ...Array.from({ length: 19 }, (_, i) => `p${29 - i}`)]);
  });

  it('a custom json-logic instance without variables: its expression held, on each side it hits', async () => {
    const { engine } = testEngine();
    const instance = await engine.createRuleInstance({ logic: { '>': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 0] } } as never);
    const both = await engine.createTransaction(tx());
    const logic = (direction: string) => ({ direction, kind: 'logic', value: true, comparison: '=', limit: true });
    expect(both.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta).toEqual({
      hitDirections: ['ORIGIN', 'DESTINATION'],
      evidence: [logic('ORIGIN'), logic('DESTINATION')],
    });
    // The same frozen meta for every such hit: nothing is allocated per hit, and no caller can change it.
    const again = await engine.createTransaction(tx());
    const meta = both.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta;
    expect(again.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta).toBe(meta);
    expect(Object.isFrozen(meta) && Object.isFrozen(meta?.evidence) && Object.isFrozen(meta?.evidence?.[0])).toBe(true);
    const receiverOnly = await engine.createTransaction(tx({ originUserId: undefined }));
    expect(receiverOnly.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta).toEqual({
      hitDirections: ['DESTINATION'],
      evidence: [logic('DESTINATION')],
    });
  });

  it('gives no evidence and keeps the shared meta for a rule without evidence (a host rule)', async () => {
    const hostRule = { ...r2TransactionAmount, id: 'HOST-PLAIN', name: 'Host plain', check: () => [{ direction: 'ORIGIN' as const }] };
    const { engine } = testEngine({ rules: [hostRule as never] });
    const instance = await engine.createRuleInstance({ ruleId: 'HOST-PLAIN', parameters: { transactionAmountThreshold: { EUR: 1 } } } as never);
    const result = await engine.createTransaction(tx());
    expect(result.hitRules.find((h) => h.ruleInstanceId === instance.id)?.ruleHitMeta).toEqual({ hitDirections: ['ORIGIN'] });
  });
});
