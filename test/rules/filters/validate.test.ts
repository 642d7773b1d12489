import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { isTxmonError } from '../../../src/errors.js';
import { validateRuleFilters } from '../../../src/rules/filters/index.js';
import { HISTORICAL_FILTER_KEYS, TRANSACTION_FILTER_KEYS, USER_FILTER_KEYS, getRuleFiltersSchemaJson } from '../../../src/domain/schemas/rule-filters.js';

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

describe('validateRuleFilters', () => {
  const accepted: { name: string; input: unknown }[] = [
    { name: 'empty object', input: {} },
    {
      name: 'every transaction filter',
      input: {
        originPaymentFilters: { paymentMethods: ['CARD'], cardIssuedCountries: ['DE'], cardPaymentChannels: ['ONLINE'], mccCodes: ['5411'] },
        destinationPaymentFilters: { paymentMethods: ['WALLET'], walletType: 'paypal' },
        transactionTypes: ['TRANSFER'],
        transactionStates: ['CREATED', 'SUCCESSFUL'],
        originTransactionCountries: ['DE'],
        destinationTransactionCountries: ['FR'],
        transactionAmountRange: { EUR: { min: 0, max: 1000.5 }, USD: {} },
        productTypes: ['gift-card'],
        transactionTags: { tags: { channel: ['web'] }, useAndLogic: true },
        transactionTimeRange24hr: { startTime: { utcHours: 22, utcMinutes: 0 }, endTime: { utcHours: 6, utcMinutes: 30 } },
        checkDirection: 'ORIGIN',
      },
    },
    {
      name: 'every user filter',
      input: {
        userType: 'CONSUMER',
        consumerUserSegments: ['RETAIL'],
        businessUserSegments: ['SMB'],
        userAgeRange: { minAge: { units: 18, granularity: 'year' }, maxAge: { units: 65, granularity: 'year' } },
        userCreationAgeRange: { minAge: { units: 0, granularity: 'day' } },
        whitelistUsers: { userIds: ['u-1'] },
        userIds: ['u-2'],
        userResidenceCountries: ['DE'],
        userNationalityCountries: ['FR'],
        userRegistrationCountries: ['GB'],
        acquisitionChannels: ['PAID'],
        kycStatus: ['SUCCESSFUL'],
        userStatus: ['ACTIVE'],
        userTags: { tags: { tier: ['gold'] } },
      },
    },
    {
      name: 'empty historical values',
      input: {
        paymentMethodsHistorical: [],
        transactionTypesHistorical: [],
        transactionStatesHistorical: [],
        transactionCountriesHistorical: [],
        transactionAmountRangeHistorical: {},
        transactionTimeRangeHistorical24hr: {},
      },
    },
    {
      name: 'non-empty historical values',
      input: {
        paymentMethodsHistorical: ['CARD'],
        transactionTypesHistorical: ['TRANSFER'],
        transactionStatesHistorical: ['SUCCESSFUL'],
        transactionCountriesHistorical: ['DE'],
        transactionAmountRangeHistorical: { EUR: { min: 1, max: 1000 } },
        transactionTimeRangeHistorical24hr: { startTime: { utcHours: 22, utcMinutes: 0 }, endTime: { utcHours: 6, utcMinutes: 0 } },
      },
    },
    { name: 'whitelist list ids', input: { whitelistUsers: { listIds: ['list-1'] } } },
    {
      name: 'empty objects everywhere',
      input: { originPaymentFilters: {}, transactionTags: {}, transactionTimeRange24hr: {}, userAgeRange: {}, whitelistUsers: { listIds: [] } },
    },
    { name: 'min equal to max', input: { transactionAmountRange: { EUR: { min: 10, max: 10 } } } },
    {
      name: 'ages in days and years are not compared',
      input: { userAgeRange: { minAge: { units: 400, granularity: 'day' }, maxAge: { units: 1, granularity: 'year' } } },
    },
  ];
  it.each(accepted)('accepts $name', ({ input }) => {
    expect(validationDetails(input)).toBe('valid');
  });

  const rejected: { name: string; input: unknown; expected: { path: string; code: string } }[] = [
    { name: 'unknown key', input: { foo: 1 }, expected: { path: '/filters/foo', code: 'additionalProperties' } },
    { name: 'not an object', input: ['CARD'], expected: { path: '/filters', code: 'type' } },
    { name: 'null', input: null, expected: { path: '/filters', code: 'type' } },
    { name: 'list given as a string', input: { transactionTypes: 'TRANSFER' }, expected: { path: '/filters/transactionTypes', code: 'type' } },
    {
      name: 'bad country code',
      input: { originTransactionCountries: ['DE', 'ZZ'] },
      expected: { path: '/filters/originTransactionCountries/1', code: 'format' },
    },
    {
      name: 'bad card issued country',
      input: { originPaymentFilters: { cardIssuedCountries: ['de'] } },
      expected: { path: '/filters/originPaymentFilters/cardIssuedCountries/0', code: 'format' },
    },
    {
      name: 'unknown payment method',
      input: { originPaymentFilters: { paymentMethods: ['BITCOIN'] } },
      expected: { path: '/filters/originPaymentFilters/paymentMethods/0', code: 'enum' },
    },
    {
      name: 'unknown key in payment filters',
      input: { destinationPaymentFilters: { iban: 'x' } },
      expected: { path: '/filters/destinationPaymentFilters/iban', code: 'additionalProperties' },
    },
    { name: 'unknown transaction state', input: { transactionStates: ['DONE'] }, expected: { path: '/filters/transactionStates/0', code: 'enum' } },
    {
      name: 'bad currency key',
      input: { transactionAmountRange: { EURO: { min: 1 } } },
      expected: { path: '/filters/transactionAmountRange/EURO', code: 'propertyNames' },
    },
    {
      name: 'negative min',
      input: { transactionAmountRange: { EUR: { min: -1 } } },
      expected: { path: '/filters/transactionAmountRange/EUR/min', code: 'minimum' },
    },
    {
      name: 'min greater than max',
      input: { transactionAmountRange: { EUR: { min: 10.01, max: 10 } } },
      expected: { path: '/filters/transactionAmountRange/EUR/min', code: 'range' },
    },
    {
      name: 'hour 24',
      input: { transactionTimeRange24hr: { startTime: { utcHours: 24, utcMinutes: 0 }, endTime: { utcHours: 1, utcMinutes: 0 } } },
      expected: { path: '/filters/transactionTimeRange24hr/startTime/utcHours', code: 'maximum' },
    },
    {
      name: 'fractional minute',
      input: { transactionTimeRange24hr: { startTime: { utcHours: 1, utcMinutes: 0.5 }, endTime: { utcHours: 2, utcMinutes: 0 } } },
      expected: { path: '/filters/transactionTimeRange24hr/startTime/utcMinutes', code: 'type' },
    },
    {
      name: 'start without end',
      input: { transactionTimeRange24hr: { startTime: { utcHours: 1, utcMinutes: 0 } } },
      expected: { path: '/filters/transactionTimeRange24hr/endTime', code: 'required' },
    },
    {
      name: 'start equal to end',
      input: { transactionTimeRange24hr: { startTime: { utcHours: 6, utcMinutes: 0 }, endTime: { utcHours: 6, utcMinutes: 0 } } },
      expected: { path: '/filters/transactionTimeRange24hr/endTime', code: 'range' },
    },
    { name: 'bad check direction', input: { checkDirection: 'BOTH' }, expected: { path: '/filters/checkDirection', code: 'enum' } },
    { name: 'bad user type', input: { userType: 'ROBOT' }, expected: { path: '/filters/userType', code: 'enum' } },
    {
      name: 'negative age',
      input: { userAgeRange: { minAge: { units: -1, granularity: 'year' } } },
      expected: { path: '/filters/userAgeRange/minAge/units', code: 'minimum' },
    },
    {
      name: 'bad age granularity',
      input: { userAgeRange: { maxAge: { units: 1, granularity: 'week' } } },
      expected: { path: '/filters/userAgeRange/maxAge/granularity', code: 'enum' },
    },
    {
      name: 'min age above max age',
      input: { userCreationAgeRange: { minAge: { units: 2, granularity: 'year' }, maxAge: { units: 13, granularity: 'month' } } },
      expected: { path: '/filters/userCreationAgeRange/minAge', code: 'range' },
    },
    { name: 'tags values not a list', input: { userTags: { tags: { tier: 'gold' } } }, expected: { path: '/filters/userTags/tags/tier', code: 'type' } },
    { name: 'forbidden key', input: JSON.parse('{"__proto__": {}}') as unknown, expected: { path: '/filters/__proto__', code: 'forbidden-key' } },
    {
      name: 'historical min greater than max',
      input: { transactionAmountRangeHistorical: { EUR: { min: 10.01, max: 10 } } },
      expected: { path: '/filters/transactionAmountRangeHistorical/EUR/min', code: 'range' },
    },
    {
      name: 'historical start equal to end',
      input: { transactionTimeRangeHistorical24hr: { startTime: { utcHours: 6, utcMinutes: 0 }, endTime: { utcHours: 6, utcMinutes: 0 } } },
      expected: { path: '/filters/transactionTimeRangeHistorical24hr/endTime', code: 'range' },
    },
    {
      name: 'unknown historical payment method',
      input: { paymentMethodsHistorical: ['CHEQUE'] },
      expected: { path: '/filters/paymentMethodsHistorical/0', code: 'enum' },
    },
    {
      name: 'unknown historical state',
      input: { transactionStatesHistorical: ['DONE'] },
      expected: { path: '/filters/transactionStatesHistorical/0', code: 'enum' },
    },
  ];
  it.each(rejected)('rejects $name', ({ input, expected }) => {
    const details = validationDetails(input);
    expect(details).not.toBe('valid');
    expect(details).toContainEqual(expected);
  });

  it('never echoes input values in the message', () => {
    try {
      validateRuleFilters({ transactionTypes: [42], userIds: ['secret-value'], whitelistUsers: { listIds: ['secret-list'] } });
      expect.unreachable();
    } catch (error) {
      expect(isTxmonError(error)).toBe(true);
      expect(JSON.stringify(error)).not.toContain('secret');
    }
  });
});

/* ---------------------------------------------------------------------------------------------- */
/* getRuleFiltersSchemaJson                                                                       */
/* ---------------------------------------------------------------------------------------------- */

describe('getRuleFiltersSchemaJson', () => {
  it('is plain JSON: no symbol keys, survives a JSON round trip unchanged', () => {
    const schema = getRuleFiltersSchemaJson();
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    const stack: unknown[] = [schema];
    while (stack.length > 0) {
      const node = stack.pop();
      if (typeof node !== 'object' || node === null) continue;
      expect(Object.getOwnPropertySymbols(node)).toEqual([]);
      stack.push(...Object.values(node));
    }
  });

  it('closes the object and lists every filter key with a title and a description', () => {
    const schema = getRuleFiltersSchemaJson() as { additionalProperties: unknown; properties: Record<string, { title?: unknown; description?: unknown }> };
    expect(schema.additionalProperties).toBe(false);
    const keys = [...TRANSACTION_FILTER_KEYS, ...USER_FILTER_KEYS, ...HISTORICAL_FILTER_KEYS, 'checkDirection'];
    expect(Object.keys(schema.properties).sort()).toEqual([...keys].sort());
    for (const key of keys) {
      expect(typeof schema.properties[key]?.title, key).toBe('string');
      expect(typeof schema.properties[key]?.description, key).toBe('string');
    }
  });

  it('returns a fresh copy each call', () => {
    const first = getRuleFiltersSchemaJson();
    first['title'] = 'changed';
    expect(getRuleFiltersSchemaJson()['title']).not.toBe('changed');
  });

  it('is usable by a plain ajv instance with the two formats', () => {
    const plain = new Ajv({ strict: false });
    plain.addFormat('country-code', /^[A-Z]{2}$/);
    plain.addFormat('currency-code', /^[A-Z]{3}$/);
    const validate = plain.compile(getRuleFiltersSchemaJson());
    expect(validate({ transactionTypes: ['TRANSFER'], transactionAmountRange: { EUR: { min: 1 } } })).toBe(true);
    expect(validate({ foo: 1 })).toBe(false);
  });
});
