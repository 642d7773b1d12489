/**
 * The `filters` of a rule instance (docs/wire-format.md#filters): the JSON Schema that
 * `getRuleFiltersSchema()` returns, with the titles, descriptions and group hints a console renders
 * its form from, and the keys of each filter group. What the filters mean when they run is in
 * `src/rules/filters/`.
 */
import { Type, type SchemaOptions, type Static } from '@sinclair/typebox';
import {
  ACQUISITION_CHANNELS,
  BUSINESS_USER_SEGMENTS,
  CONSUMER_USER_SEGMENTS,
  KYC_STATUSES,
  PAYMENT_METHODS,
  TRANSACTION_STATES,
  USER_STATES,
} from '../enums.js';
import { CountryCodeSchema, SCHEMA_LIMITS, defineClosedObject, defineStringEnum } from './common.js';

/** Limits of the filters schema (all txmon's own choices). */
export const FILTER_LIMITS = Object.freeze({
  /** Most items of a list filter (countries, types, MCC codes…). */
  MAX_LIST_ITEMS: 1000,
  /** Most user ids in `userIds` / `whitelistUsers.userIds`. */
  MAX_USER_IDS: 10_000,
  /** Most keys of a tags filter, and most currencies of an amount range. */
  MAX_MAP_KEYS: 100,
  /** Largest `units` of an age bound (100 000 days ≈ 273 years). */
  MAX_AGE_UNITS: 100_000,
});

type FilterGroup = 'transaction' | 'user' | 'historical' | 'direction';

/** Annotations a console uses to render the form: title, description and a group hint. */
function annotate(title: string, description: string, group: FilterGroup): Record<string, unknown> {
  return { title, description, 'ui:schema': { 'ui:group': group } };
}

function defineEnumList<const T extends readonly string[]>(values: T, title: string, description: string, group: FilterGroup) {
  // `uniqueItems` + enum items: form renderers show a multi-select.
  return Type.Array(defineStringEnum(values), { ...annotate(title, description, group), uniqueItems: true, maxItems: values.length });
}

function defineTextList(title: string, description: string, group: FilterGroup, maxLength: number = SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH) {
  return Type.Array(Type.String({ minLength: 1, maxLength }), { ...annotate(title, description, group), maxItems: FILTER_LIMITS.MAX_LIST_ITEMS });
}

function defineCountryList(title: string, description: string, group: FilterGroup) {
  return Type.Array(CountryCodeSchema, { ...annotate(title, description, group), maxItems: FILTER_LIMITS.MAX_LIST_ITEMS });
}

function defineUserIdList(title: string, description: string, group: FilterGroup) {
  return Type.Array(Type.String({ minLength: 1, maxLength: SCHEMA_LIMITS.ID_MAX_LENGTH }), {
    ...annotate(title, description, group),
    maxItems: FILTER_LIMITS.MAX_USER_IDS,
  });
}

/** Payment-details sub-filters of `originPaymentFilters` / `destinationPaymentFilters`. */
function definePaymentFilters(options?: SchemaOptions) {
  return defineClosedObject(
    {
      paymentMethods: Type.Optional(
        defineEnumList(PAYMENT_METHODS, 'Payment methods', 'Run only when the payment details have one of these methods', 'transaction'),
      ),
      walletType: Type.Optional(
        Type.String({
          ...annotate('Wallet type', 'Run only when the payment details have this `walletType` (WALLET payments)', 'transaction'),
          maxLength: SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH,
        }),
      ),
      cardIssuedCountries: Type.Optional(
        defineCountryList('Card issued countries', 'Run only when the card was issued in one of these countries (`cardIssuedCountry`)', 'transaction'),
      ),
      cardPaymentChannels: Type.Optional(
        defineTextList('Payment channels', 'Run only when the payment details have one of these `paymentChannel` values', 'transaction'),
      ),
      mccCodes: Type.Optional(
        defineTextList('MCC codes', 'Run only when the card merchant category code (`merchantDetails.MCC`) is one of these', 'transaction', 16),
      ),
    },
    options,
  );
}
/** Payment-details sub-filters (schema without title; the filters schema holds titled copies). */
export const PaymentFiltersSchema = definePaymentFilters();
/** Payment-details sub-filters. */
export type PaymentFilters = Static<typeof PaymentFiltersSchema>;

/** Bounds of an amount range in one currency; both inclusive, both optional. */
export const AmountBoundsSchema = defineClosedObject(
  {
    min: Type.Optional(Type.Number({ title: 'Minimum', description: 'Smallest accepted amount (inclusive)', minimum: 0, maximum: SCHEMA_LIMITS.MAX_AMOUNT })),
    max: Type.Optional(Type.Number({ title: 'Maximum', description: 'Largest accepted amount (inclusive)', minimum: 0, maximum: SCHEMA_LIMITS.MAX_AMOUNT })),
  },
  { title: 'Amount bounds', description: 'Inclusive bounds in the currency of the key' },
);
/** Inclusive amount bounds in one currency. */
export type AmountBounds = Static<typeof AmountBoundsSchema>;

function defineAmountRange(title: string, description: string, group: FilterGroup) {
  return Type.Unsafe<Record<string, AmountBounds>>({
    ...annotate(title, description, group),
    type: 'object',
    propertyNames: { type: 'string', format: 'currency-code' },
    additionalProperties: AmountBoundsSchema,
    maxProperties: FILTER_LIMITS.MAX_MAP_KEYS,
  });
}

function defineTimeOfDay(title: string, description: string) {
  return defineClosedObject(
    {
      utcHours: Type.Integer({ title: 'Hours (UTC)', description: 'Hour of the day in UTC, 0–23', minimum: 0, maximum: 23 }),
      utcMinutes: Type.Integer({ title: 'Minutes', description: 'Minute of the hour, 0–59', minimum: 0, maximum: 59 }),
    },
    { title, description },
  );
}
/** A time of day in UTC. */
export const TimeOfDaySchema = defineTimeOfDay('Time of day', 'A time of day in UTC');
/** A time of day in UTC. */
export type TimeOfDay = Static<typeof TimeOfDaySchema>;

function defineTimeRange(title: string, description: string, group: FilterGroup) {
  return defineClosedObject(
    {
      startTime: Type.Optional(defineTimeOfDay('Start time', 'Start of the range (inclusive), UTC')),
      endTime: Type.Optional(defineTimeOfDay('End time', 'End of the range (exclusive), UTC')),
    },
    // Both or neither: `{}` means "no filter".
    { ...annotate(title, description, group), dependencies: { startTime: ['endTime'], endTime: ['startTime'] } },
  );
}

const TagValuesSchema = Type.Unsafe<Record<string, string[]>>({
  title: 'Tags',
  description: 'Tag key → accepted values',
  type: 'object',
  propertyNames: { type: 'string', minLength: 1, maxLength: SCHEMA_LIMITS.SHORT_TEXT_MAX_LENGTH },
  additionalProperties: {
    type: 'array',
    items: { type: 'string', maxLength: SCHEMA_LIMITS.TEXT_MAX_LENGTH },
    maxItems: FILTER_LIMITS.MAX_LIST_ITEMS,
  },
  maxProperties: FILTER_LIMITS.MAX_MAP_KEYS,
});

function defineTagsFilter(title: string, description: string, group: FilterGroup) {
  return defineClosedObject(
    {
      tags: Type.Optional(TagValuesSchema),
      useAndLogic: Type.Optional(
        Type.Boolean({
          title: 'Match all keys',
          description: 'When true every listed key must match one of its values; otherwise (default) one matching tag is enough',
        }),
      ),
    },
    annotate(title, description, group),
  );
}
/** A tags filter: tag key → accepted values, OR (default) or AND over keys. */
export interface TagsFilter {
  tags?: Record<string, string[]>;
  useAndLogic?: boolean;
}

function defineAge(title: string, description: string) {
  return defineClosedObject(
    {
      units: Type.Integer({ title: 'Units', description: 'Number of whole units', minimum: 0, maximum: FILTER_LIMITS.MAX_AGE_UNITS }),
      granularity: defineStringEnum(['day', 'month', 'year'] as const, { title: 'Granularity', description: 'Unit of the age' }),
    },
    { title, description },
  );
}
/** An age: `units` whole days, months or years. */
export const AgeSchema = defineAge('Age', 'Whole days, months or years');
/** An age. */
export type Age = Static<typeof AgeSchema>;

function defineAgeRange(title: string, description: string) {
  return defineClosedObject(
    {
      minAge: Type.Optional(defineAge('Minimum age', 'Completed units at least this (inclusive)')),
      maxAge: Type.Optional(defineAge('Maximum age', 'Completed units at most this (inclusive)')),
    },
    annotate(title, description, 'user'),
  );
}

/**
 * JSON Schema (TypeBox) of `filters`: every key optional, unknown keys rejected, every property
 * with `title`, `description` and a `ui:schema` group hint so a console can render a form from it.
 */
export const RuleFiltersSchema = defineClosedObject(
  {
    // Transaction filters.
    originPaymentFilters: Type.Optional(
      definePaymentFilters(annotate('Origin payment filters', 'Conditions on the origin payment details; all given conditions must hold', 'transaction')),
    ),
    destinationPaymentFilters: Type.Optional(
      definePaymentFilters(
        annotate('Destination payment filters', 'Conditions on the destination payment details; all given conditions must hold', 'transaction'),
      ),
    ),
    transactionTypes: Type.Optional(
      defineTextList('Transaction types', 'Run only for transactions of these types (`type`)', 'transaction', SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH),
    ),
    transactionStates: Type.Optional(
      defineEnumList(TRANSACTION_STATES, 'Transaction states', 'Run only when the transaction is in one of these states (no state = CREATED)', 'transaction'),
    ),
    originTransactionCountries: Type.Optional(
      defineCountryList('Origin countries', 'Run only when the origin country (`originAmountDetails.country`) is one of these', 'transaction'),
    ),
    destinationTransactionCountries: Type.Optional(
      defineCountryList('Destination countries', 'Run only when the destination country (`destinationAmountDetails.country`) is one of these', 'transaction'),
    ),
    transactionAmountRange: Type.Optional(
      defineAmountRange(
        'Transaction amount range',
        'Currency → inclusive bounds of the origin amount; transactions in a currency not listed do not pass',
        'transaction',
      ),
    ),
    productTypes: Type.Optional(defineTextList('Product types', 'Run only for these `productType` values', 'transaction')),
    transactionTags: Type.Optional(defineTagsFilter('Transaction tags', 'Run only for transactions with matching tags', 'transaction')),
    transactionTimeRange24hr: Type.Optional(
      defineTimeRange('Time of day', 'Run only when the transaction time of day (UTC) is in [start, end); a range may wrap midnight', 'transaction'),
    ),
    checkDirection: Type.Optional(
      defineStringEnum(['ORIGIN', 'DESTINATION'] as const, annotate('Check direction', 'Keep only hits on this side of the transaction', 'direction')),
    ),

    // User filters.
    userType: Type.Optional(defineStringEnum(['CONSUMER', 'BUSINESS'] as const, annotate('User type', 'Run only for users of this type', 'user'))),
    consumerUserSegments: Type.Optional(
      defineEnumList(CONSUMER_USER_SEGMENTS, 'Consumer segments', 'Run only for consumer users in these segments (`userSegment`)', 'user'),
    ),
    businessUserSegments: Type.Optional(
      defineEnumList(
        BUSINESS_USER_SEGMENTS,
        'Business segments',
        'Run only for business users in these segments (`legalEntity.companyGeneralDetails.userSegment`)',
        'user',
      ),
    ),
    userAgeRange: Type.Optional(
      defineAgeRange(
        'User age',
        'Age at the transaction time: from `userDetails.dateOfBirth` (consumers) or `legalEntity.companyRegistrationDetails.dateOfRegistration` (businesses)',
      ),
    ),
    userCreationAgeRange: Type.Optional(defineAgeRange('Time since user creation', 'Time from the user `createdTimestamp` to the transaction')),
    whitelistUsers: Type.Optional(
      defineClosedObject(
        {
          userIds: Type.Optional(defineUserIdList('Whitelisted user ids', 'The rule never runs for these users', 'user')),
          listIds: Type.Optional(
            defineUserIdList('Whitelist ids', 'Ids of WHITELIST lists of subtype USER_ID (engine.putList): their users are skipped', 'user'),
          ),
        },
        annotate('Whitelisted users', 'Users the rule is skipped for', 'user'),
      ),
    ),
    userIds: Type.Optional(defineUserIdList('User ids', 'Run only for these users', 'user')),
    userResidenceCountries: Type.Optional(
      defineCountryList('Residence countries', 'Run only for users residing in these countries (`userDetails.countryOfResidence`)', 'user'),
    ),
    userNationalityCountries: Type.Optional(
      defineCountryList('Nationality countries', 'Run only for users of these nationalities (`userDetails.countryOfNationality`)', 'user'),
    ),
    userRegistrationCountries: Type.Optional(
      defineCountryList(
        'Registration countries',
        'Run only for businesses registered in these countries (`legalEntity.companyRegistrationDetails.registrationCountry`)',
        'user',
      ),
    ),
    acquisitionChannels: Type.Optional(
      defineEnumList(ACQUISITION_CHANNELS, 'Acquisition channels', 'Run only for users acquired through these channels', 'user'),
    ),
    kycStatus: Type.Optional(defineEnumList(KYC_STATUSES, 'KYC status', 'Run only for users with these KYC statuses', 'user')),
    userStatus: Type.Optional(defineEnumList(USER_STATES, 'User status', 'Run only for users in these account states', 'user')),
    userTags: Type.Optional(defineTagsFilter('User tags', 'Run only for users with matching tags', 'user')),

    // Historical filters: which past transactions count in the rule's windowed aggregates.
    paymentMethodsHistorical: Type.Optional(
      defineEnumList(
        PAYMENT_METHODS,
        'Past payment methods',
        'Count only past transactions whose origin or destination payment method is one of these',
        'historical',
      ),
    ),
    transactionTypesHistorical: Type.Optional(
      defineTextList('Past transaction types', 'Count only past transactions of these types', 'historical', SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH),
    ),
    transactionStatesHistorical: Type.Optional(
      defineEnumList(
        TRANSACTION_STATES,
        'Past transaction states',
        'Count only past transactions currently in these states (events move them in and out)',
        'historical',
      ),
    ),
    transactionCountriesHistorical: Type.Optional(
      defineCountryList('Past transaction countries', 'Count only past transactions whose origin or destination amount country is one of these', 'historical'),
    ),
    transactionAmountRangeHistorical: Type.Optional(
      defineAmountRange(
        'Past transaction amounts',
        'Count only past transactions whose origin amount is in the range of its currency (bounds inclusive)',
        'historical',
      ),
    ),
    transactionTimeRangeHistorical24hr: Type.Optional(
      defineTimeRange('Past transaction time of day', 'Count only past transactions made in this UTC time-of-day range', 'historical'),
    ),
  },
  {
    title: 'Rule filters',
    description: 'Conditions that decide whether a rule instance runs for a transaction and which sides it may hit; all given filters must pass',
  },
);

/** The `filters` of a rule instance. */
export type RuleFilters = Static<typeof RuleFiltersSchema>;

/** Keys of the transaction filters (all must pass for the instance to run). */
export const TRANSACTION_FILTER_KEYS = Object.freeze([
  'originPaymentFilters',
  'destinationPaymentFilters',
  'transactionTypes',
  'transactionStates',
  'originTransactionCountries',
  'destinationTransactionCountries',
  'transactionAmountRange',
  'productTypes',
  'transactionTags',
  'transactionTimeRange24hr',
] as const satisfies readonly (keyof RuleFilters)[]);

/** Keys of the user filters (checked against the sender and the receiver separately). */
export const USER_FILTER_KEYS = Object.freeze([
  'userType',
  'consumerUserSegments',
  'businessUserSegments',
  'userAgeRange',
  'userCreationAgeRange',
  'whitelistUsers',
  'userIds',
  'userResidenceCountries',
  'userNationalityCountries',
  'userRegistrationCountries',
  'acquisitionChannels',
  'kycStatus',
  'userStatus',
  'userTags',
] as const satisfies readonly (keyof RuleFilters)[]);

/** Keys of the historical filters (restrict which past transactions count in aggregates). */
export const HISTORICAL_FILTER_KEYS = Object.freeze([
  'paymentMethodsHistorical',
  'transactionTypesHistorical',
  'transactionStatesHistorical',
  'transactionCountriesHistorical',
  'transactionAmountRangeHistorical',
  'transactionTimeRangeHistorical24hr',
] as const satisfies readonly (keyof RuleFilters)[]);

let schemaJsonText: string | undefined;

/**
 * The filters schema as plain JSON (no TypeBox symbols): what `getRuleFiltersSchema()` and
 * `GET /rule-filters-schema` return. A fresh copy on every call, so callers may modify it.
 */
export function getRuleFiltersSchemaJson(): Record<string, unknown> {
  // JSON.stringify drops TypeBox's symbol-keyed markers.
  schemaJsonText ??= JSON.stringify(RuleFiltersSchema);
  return JSON.parse(schemaJsonText) as Record<string, unknown>;
}
