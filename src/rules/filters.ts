/**
 * Rule-instance filters (DOMAIN.md §(d) points 4–5 and "Rule filters"; SPEC §3 row `filters`).
 *
 * `filters` is a flat object keyed by filter name. Every key whose value is not empty (`undefined`,
 * `[]`, `{}`, `''`, or an object whose members are all empty) is a filter, and all filters must pass
 * (AND). Three groups:
 * - transaction filters: all must pass or the instance does not run for the transaction;
 * - user filters: checked against the sender and the receiver separately; the instance runs when
 *   one of them passes all user filters, and only the sides that passed can be hit;
 * - historical filters: restrict which past transactions count in the instance's windowed
 *   aggregates ({@link compileHistoricalFilters}); the engine keeps a filtered copy of each series
 *   the rule reads (a derived series, see `src/rules/series.ts`).
 *
 * `checkDirection` keeps only the ORIGIN or the DESTINATION side.
 *
 * The engine calls {@link compileRuleFilters} once per instance and keeps the compiled function:
 * sets and parsed bounds are built once, evaluation allocates nothing.
 */
import { Type, type SchemaOptions, type Static } from '@sinclair/typebox';
import {
  ACQUISITION_CHANNELS,
  BUSINESS_USER_SEGMENTS,
  CONSUMER_USER_SEGMENTS,
  CountryCodeSchema,
  KYC_STATUSES,
  PAYMENT_METHODS,
  SCHEMA_LIMITS,
  TRANSACTION_STATES,
  USER_STATES,
  defineClosedObject,
  defineStringEnum,
  canonicalJson,
  toScaled,
  type Transaction,
} from '../domain/index.js';
import { TxmonError, type ErrorDetail } from '../errors.js';
import { appendPointer, assertSafeJson, collectSchemaErrors } from '../validation/index.js';
import type { RuleUser } from './types.js';

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

/** Path prefix of every validation detail: filters live under `/filters` of a rule-instance request. */
const BASE_PATH = '/filters';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/* ------------------------------------------------------------------------------------------------
 * Schema
 * ---------------------------------------------------------------------------------------------- */

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
  return defineClosedObject({
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
  }, options);
}
/** Payment-details sub-filters (schema without title; the filters schema holds titled copies). */
export const PaymentFiltersSchema = definePaymentFilters();
/** Payment-details sub-filters. */
export type PaymentFilters = Static<typeof PaymentFiltersSchema>;

/** Bounds of an amount range in one currency; both inclusive, both optional. */
export const AmountBoundsSchema = defineClosedObject(
  {
    min: Type.Optional(
      Type.Number({ title: 'Minimum', description: 'Smallest accepted amount (inclusive)', minimum: 0, maximum: SCHEMA_LIMITS.MAX_AMOUNT }),
    ),
    max: Type.Optional(
      Type.Number({ title: 'Maximum', description: 'Largest accepted amount (inclusive)', minimum: 0, maximum: SCHEMA_LIMITS.MAX_AMOUNT }),
    ),
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
    transactionTypes: Type.Optional(defineTextList('Transaction types', 'Run only for transactions of these types (`type`)', 'transaction', SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH)),
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
          listIds: Type.Optional(defineUserIdList('Whitelist ids', 'Ids of WHITELIST lists of subtype USER_ID (engine.putList): their users are skipped', 'user')),
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
      defineEnumList(PAYMENT_METHODS, 'Past payment methods', 'Count only past transactions whose origin or destination payment method is one of these', 'historical'),
    ),
    transactionTypesHistorical: Type.Optional(
      defineTextList('Past transaction types', 'Count only past transactions of these types', 'historical', SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH),
    ),
    transactionStatesHistorical: Type.Optional(
      defineEnumList(TRANSACTION_STATES, 'Past transaction states', 'Count only past transactions currently in these states (events move them in and out)', 'historical'),
    ),
    transactionCountriesHistorical: Type.Optional(
      defineCountryList('Past transaction countries', 'Count only past transactions whose origin or destination amount country is one of these', 'historical'),
    ),
    transactionAmountRangeHistorical: Type.Optional(
      defineAmountRange('Past transaction amounts', 'Count only past transactions whose origin amount is in the range of its currency (bounds inclusive)', 'historical'),
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

/* ------------------------------------------------------------------------------------------------
 * Validation
 * ---------------------------------------------------------------------------------------------- */

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Whether a filter value means "no filter": `undefined`, `null`, `''`, `[]`, or an object whose
 * every member is empty. Numbers and booleans are not empty.
 */
function isEmptyValue(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (typeof value === 'string') return value.length === 0;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') {
    for (const key of Object.keys(value)) if (!isEmptyValue((value as Record<string, unknown>)[key])) return false;
    return true;
  }
  return false;
}

function unsupported(path: string, message: string): ErrorDetail {
  return { path, code: 'unsupported', message };
}

/** Age in comparable units: months for month/year, days for day. */
function ageBound(age: Age): { unit: 'day' | 'month'; value: number } {
  if (age.granularity === 'day') return { unit: 'day', value: age.units };
  return { unit: 'month', value: age.granularity === 'year' ? age.units * 12 : age.units };
}

/** Checks that hold across fields, on a value that already matches the schema. */
function collectSemanticErrors(filters: RuleFilters): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of ['transactionAmountRange', 'transactionAmountRangeHistorical'] as const) {
    const range = filters[key];
    if (range === undefined) continue;
    for (const currency of Object.keys(range)) {
      const bounds = range[currency];
      if (bounds?.min !== undefined && bounds.max !== undefined && toScaled(bounds.min) > toScaled(bounds.max)) {
        details.push({ path: `${appendPointer(`${BASE_PATH}/${key}`, currency)}/min`, code: 'range', message: 'must not be greater than max' });
      }
    }
  }
  for (const key of ['transactionTimeRange24hr', 'transactionTimeRangeHistorical24hr'] as const) {
    const time = filters[key];
    if (time?.startTime !== undefined && time.endTime !== undefined && toMinuteOfDay(time.startTime) === toMinuteOfDay(time.endTime)) {
      details.push({ path: `${BASE_PATH}/${key}/endTime`, code: 'range', message: 'must differ from startTime (the range would be empty)' });
    }
  }
  for (const key of ['userAgeRange', 'userCreationAgeRange'] as const) {
    const ages = filters[key];
    if (ages?.minAge === undefined || ages.maxAge === undefined) continue;
    const min = ageBound(ages.minAge);
    const max = ageBound(ages.maxAge);
    // Days and months are not comparable (months differ in length); such a pair is accepted.
    if (min.unit === max.unit && min.value > max.value) {
      details.push({ path: `${BASE_PATH}/${key}/minAge`, code: 'range', message: 'must not be greater than maxAge' });
    }
  }
  return details;
}

/**
 * Validates rule-instance `filters` against {@link RuleFiltersSchema}, then:
 * - `min > max` in an amount range, a time range whose start equals its end, or
 *   `minAge > maxAge` (same unit family) → code `range`.
 *
 * Empty values (`[]`, `{}`, `''`) are accepted everywhere and mean "no filter".
 *
 * @throws TxmonError `INVALID_FILTERS` (400) with details whose paths start with `/filters`,
 *   e.g. `/filters/foo` (code `additionalProperties`) for an unknown key. Never echoes values.
 */
export function validateRuleFilters(filters: unknown): asserts filters is RuleFilters {
  assertSafeJson(filters, { basePath: BASE_PATH, code: 'INVALID_FILTERS', what: 'filters' });
  const details = collectSchemaErrors(RuleFiltersSchema, filters, BASE_PATH);
  if (isRecord(filters)) {
    if (details.length === 0) details.push(...collectSemanticErrors(filters as RuleFilters));
  }
  if (details.length === 0) return;
  const first = details[0] as ErrorDetail;
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  throw new TxmonError('INVALID_FILTERS', `Invalid filters: ${first.path} ${first.message}${more}`, details);
}

/* ------------------------------------------------------------------------------------------------
 * Evaluation
 * ---------------------------------------------------------------------------------------------- */

/**
 * Outcome of the filters for one transaction.
 * - `run`: the instance runs (transaction filters pass, and the sender or the receiver passes the user filters);
 * - `origin` / `destination`: hits on that side are kept (`run`, that side passed the user filters,
 *   and `checkDirection` allows it).
 */
export interface FilterDecision {
  readonly run: boolean;
  readonly origin: boolean;
  readonly destination: boolean;
}

/** What the filters read. */
export interface RuleFilterContext {
  readonly transaction: Transaction;
  readonly originUser: RuleUser | null;
  readonly destinationUser: RuleUser | null;
}

/** Filters compiled once per instance: call it per transaction. `active` is false for filters with no effect. */
export type CompiledRuleFilters = ((context: RuleFilterContext) => FilterDecision) & { readonly active: boolean };

type TransactionCheck = (transaction: Transaction) => boolean;
/** A user filter, called only with a user (a missing user fails every user filter). */
type UserCheck = (user: RuleUser, at: number) => boolean;

// The eight possible decisions, frozen and shared: evaluation allocates nothing.
const DECISIONS: readonly FilterDecision[] = Array.from({ length: 8 }, (_, bits) =>
  Object.freeze({ run: (bits & 4) !== 0, origin: (bits & 2) !== 0, destination: (bits & 1) !== 0 }),
);
const ALL_PASS = DECISIONS[7] as FilterDecision;

function decide(run: boolean, origin: boolean, destination: boolean): FilterDecision {
  return DECISIONS[(run ? 4 : 0) | (origin ? 2 : 0) | (destination ? 1 : 0)] as FilterDecision;
}

function read(value: unknown, key: string): unknown {
  return isRecord(value) ? value[key] : undefined;
}

function isIn(set: ReadonlySet<string>, value: unknown): boolean {
  return typeof value === 'string' && set.has(value);
}

function toSet(values: readonly string[] | undefined): ReadonlySet<string> | null {
  return values === undefined || values.length === 0 ? null : new Set(values);
}

function toMinuteOfDay(time: TimeOfDay): number {
  return time.utcHours * 60 + time.utcMinutes;
}

/** Tags filter → predicate over a `[{ key, value }]` list, or null when the filter is empty. */
function compileTags(filter: TagsFilter | undefined): ((tags: unknown) => boolean) | null {
  if (filter?.tags === undefined) return null;
  const accepted = new Map<string, ReadonlySet<string>>();
  // A key with no values can never match; it is treated as not set (like any empty value).
  for (const key of Object.keys(filter.tags)) {
    const values = filter.tags[key];
    if (values !== undefined && values.length > 0) accepted.set(key, new Set(values));
  }
  if (accepted.size === 0) return null;
  const everyKey = filter.useAndLogic === true;
  return (tags) => {
    if (!Array.isArray(tags)) return false;
    if (!everyKey) {
      for (const tag of tags) {
        const values = accepted.get(read(tag, 'key') as string);
        if (values !== undefined && isIn(values, read(tag, 'value'))) return true;
      }
      return false;
    }
    const matched = new Set<string>();
    for (const tag of tags) {
      const key = read(tag, 'key');
      if (typeof key !== 'string') continue;
      const values = accepted.get(key);
      if (values !== undefined && isIn(values, read(tag, 'value'))) matched.add(key);
    }
    return matched.size === accepted.size;
  };
}

function compilePaymentFilters(filter: PaymentFilters | undefined, side: 'originPaymentDetails' | 'destinationPaymentDetails'): TransactionCheck | null {
  if (filter === undefined) return null;
  const checks: ((details: Record<string, unknown>) => boolean)[] = [];
  const methods = toSet(filter.paymentMethods);
  if (methods !== null) checks.push((details) => isIn(methods, details['method']));
  const walletType = filter.walletType;
  if (walletType !== undefined && walletType !== '') checks.push((details) => details['walletType'] === walletType);
  const countries = toSet(filter.cardIssuedCountries);
  if (countries !== null) checks.push((details) => isIn(countries, details['cardIssuedCountry']));
  const channels = toSet(filter.cardPaymentChannels);
  if (channels !== null) checks.push((details) => isIn(channels, details['paymentChannel']));
  const mccCodes = toSet(filter.mccCodes);
  if (mccCodes !== null) checks.push((details) => isIn(mccCodes, read(details['merchantDetails'], 'MCC')));
  if (checks.length === 0) return null;
  return (transaction) => {
    const details: unknown = transaction[side];
    if (!isRecord(details)) return false;
    for (const check of checks) if (!check(details)) return false;
    return true;
  };
}

function compileAmountRange(range: Record<string, AmountBounds> | undefined): TransactionCheck | null {
  if (range === undefined) return null;
  const bounds = new Map<string, { readonly min: bigint | null; readonly max: bigint | null }>();
  for (const currency of Object.keys(range)) {
    const bound = range[currency];
    bounds.set(currency, {
      min: bound?.min === undefined ? null : toScaled(bound.min),
      max: bound?.max === undefined ? null : toScaled(bound.max),
    });
  }
  if (bounds.size === 0) return null;
  return (transaction) => {
    const details = transaction.originAmountDetails;
    if (details === undefined) return false;
    const bound = bounds.get(details.transactionCurrency);
    const amount = details.transactionAmount;
    if (bound === undefined || typeof amount !== 'number' || !Number.isFinite(amount)) return false;
    // Exact decimal comparison: 999.99 vs 1000 never suffers from binary rounding.
    const scaled = toScaled(amount);
    return (bound.min === null || scaled >= bound.min) && (bound.max === null || scaled <= bound.max);
  };
}

function compileTimeRange(range: { startTime?: TimeOfDay; endTime?: TimeOfDay } | undefined): TransactionCheck | null {
  if (range?.startTime === undefined || range.endTime === undefined) return null;
  const start = toMinuteOfDay(range.startTime);
  const end = toMinuteOfDay(range.endTime);
  const wraps = start > end;
  return (transaction) => {
    const timestamp = transaction.timestamp;
    if (typeof timestamp !== 'number' || !Number.isFinite(timestamp)) return false;
    const minute = Math.floor((((timestamp % DAY_MS) + DAY_MS) % DAY_MS) / MINUTE_MS);
    // [start, end): an end before the start wraps over midnight (22:00–06:00).
    return wraps ? minute >= start || minute < end : minute >= start && minute < end;
  };
}

function compileTransactionChecks(filters: RuleFilters): TransactionCheck[] {
  const checks: TransactionCheck[] = [];
  const add = (check: TransactionCheck | null): void => {
    if (check !== null) checks.push(check);
  };
  add(compilePaymentFilters(filters.originPaymentFilters, 'originPaymentDetails'));
  add(compilePaymentFilters(filters.destinationPaymentFilters, 'destinationPaymentDetails'));
  const types = toSet(filters.transactionTypes);
  if (types !== null) add((transaction) => isIn(types, transaction.type));
  const states = toSet(filters.transactionStates);
  if (states !== null) add((transaction) => isIn(states, transaction.transactionState ?? 'CREATED'));
  const originCountries = toSet(filters.originTransactionCountries);
  if (originCountries !== null) add((transaction) => isIn(originCountries, transaction.originAmountDetails?.country));
  const destinationCountries = toSet(filters.destinationTransactionCountries);
  if (destinationCountries !== null) add((transaction) => isIn(destinationCountries, transaction.destinationAmountDetails?.country));
  add(compileAmountRange(filters.transactionAmountRange));
  const productTypes = toSet(filters.productTypes);
  if (productTypes !== null) add((transaction) => isIn(productTypes, transaction.productType));
  const tags = compileTags(filters.transactionTags);
  if (tags !== null) add((transaction) => tags(transaction.tags));
  add(compileTimeRange(filters.transactionTimeRange24hr));
  return checks;
}

/** Epoch ms of 00:00 UTC of a `YYYY-MM-DD` date (a time part after `T` is ignored), or null. */
function parseCalendarDate(value: unknown): number | null {
  if (typeof value !== 'string') return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:$|T)/.exec(value);
  if (match === null) return null;
  const year = Number(match[1]);
  const month = Number(match[2]) - 1;
  const day = Number(match[3]);
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(year, month, day);
  // A date that does not exist (2023-02-30) rolls over; reject it.
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month || date.getUTCDate() !== day) return null;
  return date.getTime();
}

/**
 * Whole units completed from `start` to `at` (both epoch ms), calendar arithmetic in UTC. A month
 * (year) is completed when the same day of month (and month) and time of day is reached; a start
 * on a day the target month lacks (29 Feb, the 31st) completes on the following day.
 */
function completedUnits(start: number, at: number, granularity: Age['granularity']): number {
  if (granularity === 'day') return Math.floor((at - start) / DAY_MS);
  const from = new Date(start);
  const to = new Date(at);
  const fromWithinMonth = from.getUTCDate() * DAY_MS + (((start % DAY_MS) + DAY_MS) % DAY_MS);
  const toWithinMonth = to.getUTCDate() * DAY_MS + (((at % DAY_MS) + DAY_MS) % DAY_MS);
  let months = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
  if (toWithinMonth < fromWithinMonth) months -= 1;
  return granularity === 'month' ? months : Math.floor(months / 12);
}

function compileAgeRange(
  range: { minAge?: Age; maxAge?: Age } | undefined,
  startOf: (user: RuleUser) => number | null,
): UserCheck | null {
  const minAge = range?.minAge;
  const maxAge = range?.maxAge;
  if (minAge === undefined && maxAge === undefined) return null;
  return (user, at) => {
    const start = startOf(user);
    // No date, or a date after the transaction: the age is unknown, the filter fails.
    if (start === null || !Number.isFinite(at) || at < start) return false;
    if (minAge !== undefined && completedUnits(start, at, minAge.granularity) < minAge.units) return false;
    if (maxAge !== undefined && completedUnits(start, at, maxAge.granularity) > maxAge.units) return false;
    return true;
  };
}

/** Date of birth (consumer) or registration (business) of a user, epoch ms, or null. */
function birthOf(user: RuleUser): number | null {
  const profile = user.profile;
  const dateOfBirth = () => parseCalendarDate(read(profile?.['userDetails'], 'dateOfBirth'));
  const dateOfRegistration = () => parseCalendarDate(read(read(profile?.['legalEntity'], 'companyRegistrationDetails'), 'dateOfRegistration'));
  if (user.type === 'CONSUMER') return dateOfBirth();
  if (user.type === 'BUSINESS') return dateOfRegistration();
  return dateOfBirth() ?? dateOfRegistration();
}

function creationOf(user: RuleUser): number | null {
  const created = user.profile?.['createdTimestamp'];
  return typeof created === 'number' && Number.isFinite(created) ? created : null;
}

/** Wraps a check on the profile: a user without a profile fails. */
function onProfile(check: (profile: Readonly<Record<string, unknown>>, user: RuleUser, at: number) => boolean): UserCheck {
  return (user, at) => user.profile !== null && check(user.profile, user, at);
}

function compileUserChecks(filters: RuleFilters): UserCheck[] {
  const checks: UserCheck[] = [];
  const userType = filters.userType;
  if (userType !== undefined) checks.push(onProfile((_, user) => user.type === userType));
  const consumerSegments = toSet(filters.consumerUserSegments);
  if (consumerSegments !== null) checks.push(onProfile((profile) => isIn(consumerSegments, profile['userSegment'])));
  const businessSegments = toSet(filters.businessUserSegments);
  if (businessSegments !== null) {
    checks.push(onProfile((profile) => isIn(businessSegments, read(read(profile['legalEntity'], 'companyGeneralDetails'), 'userSegment'))));
  }
  const age = compileAgeRange(filters.userAgeRange, birthOf);
  if (age !== null) checks.push(onProfile((_, user, at) => age(user, at)));
  const creationAge = compileAgeRange(filters.userCreationAgeRange, creationOf);
  if (creationAge !== null) checks.push(onProfile((_, user, at) => creationAge(user, at)));
  // Id filters need only the id: a user seen in transactions but never created still has one.
  const whitelisted = toSet(filters.whitelistUsers?.userIds);
  if (whitelisted !== null) checks.push((user) => !whitelisted.has(user.userId));
  // List-backed whitelists: the engine looks the users up before the filters run (RuleUser.whitelists).
  const whitelistIds = filters.whitelistUsers?.listIds ?? [];
  if (whitelistIds.length > 0) checks.push((user) => !whitelistIds.some((id) => user.whitelists?.has(id) === true));
  const userIds = toSet(filters.userIds);
  if (userIds !== null) checks.push((user) => userIds.has(user.userId));
  const residence = toSet(filters.userResidenceCountries);
  if (residence !== null) checks.push(onProfile((profile) => isIn(residence, read(profile['userDetails'], 'countryOfResidence'))));
  const nationality = toSet(filters.userNationalityCountries);
  if (nationality !== null) checks.push(onProfile((profile) => isIn(nationality, read(profile['userDetails'], 'countryOfNationality'))));
  const registration = toSet(filters.userRegistrationCountries);
  if (registration !== null) {
    checks.push(
      onProfile((profile) => isIn(registration, read(read(profile['legalEntity'], 'companyRegistrationDetails'), 'registrationCountry'))),
    );
  }
  const channels = toSet(filters.acquisitionChannels);
  if (channels !== null) checks.push(onProfile((profile) => isIn(channels, profile['acquisitionChannel'])));
  const kyc = toSet(filters.kycStatus);
  if (kyc !== null) checks.push(onProfile((profile) => isIn(kyc, read(profile['kycStatusDetails'], 'status'))));
  const states = toSet(filters.userStatus);
  if (states !== null) checks.push(onProfile((profile) => isIn(states, read(profile['userStateDetails'], 'state'))));
  const tags = compileTags(filters.userTags);
  if (tags !== null) checks.push(onProfile((profile) => tags(profile['tags'])));
  return checks;
}

function passesUserChecks(checks: readonly UserCheck[], user: RuleUser | null, at: number): boolean {
  if (user === null) return false;
  for (const check of checks) if (!check(user, at)) return false;
  return true;
}

const ALWAYS_PASS: CompiledRuleFilters = Object.assign(() => ALL_PASS, { active: false as const });

/**
 * Compiles `filters` (already validated) into a function of the transaction and its users: sets,
 * exact amount bounds and time ranges are built once. Historical filters are not part of it (see
 * {@link compileHistoricalFilters}). The result is pure; the engine keeps one per instance.
 *
 * Semantics (DOMAIN.md §(d).4):
 * - `run` = every transaction filter passes AND (no user filter set OR the sender passes all user
 *   filters OR the receiver passes all);
 * - `origin` = `run` AND (no user filter OR the sender passed) AND `checkDirection` ≠ DESTINATION;
 * - `destination` = `run` AND (no user filter OR the receiver passed) AND `checkDirection` ≠ ORIGIN.
 *
 * A filter on a field the transaction or profile lacks fails; a missing user (or, except for
 * `userIds` and `whitelistUsers`, a user without a profile) fails every user filter.
 *
 * @example
 * ```ts
 * const check = compileRuleFilters({ transactionTypes: ['TRANSFER'], checkDirection: 'ORIGIN' });
 * check({ transaction, originUser, destinationUser }); // { run: true, origin: true, destination: false }
 * ```
 */
export function compileRuleFilters(filters: RuleFilters): CompiledRuleFilters {
  const transactionChecks = compileTransactionChecks(filters);
  const userChecks = compileUserChecks(filters);
  const direction = filters.checkDirection;
  const originAllowed = direction !== 'DESTINATION';
  const destinationAllowed = direction !== 'ORIGIN';
  if (transactionChecks.length === 0 && userChecks.length === 0 && direction === undefined) return ALWAYS_PASS;
  const hasUserChecks = userChecks.length > 0;
  const evaluate = (context: RuleFilterContext): FilterDecision => {
    const transaction = context.transaction;
    for (const check of transactionChecks) if (!check(transaction)) return DECISIONS[0] as FilterDecision;
    let origin = true;
    let destination = true;
    if (hasUserChecks) {
      origin = passesUserChecks(userChecks, context.originUser, transaction.timestamp);
      destination = passesUserChecks(userChecks, context.destinationUser, transaction.timestamp);
      if (!origin && !destination) return DECISIONS[0] as FilterDecision;
    }
    return decide(true, origin && originAllowed, destination && destinationAllowed);
  };
  return Object.assign(evaluate, { active: true as const });
}

/**
 * Evaluates `filters` for one transaction: compiles and applies them (see {@link compileRuleFilters}
 * for the semantics; callers evaluating the same filters often should keep the compiled form).
 * Pure: never mutates its inputs.
 */
export function evaluateRuleFilters(filters: RuleFilters, context: RuleFilterContext): FilterDecision {
  return compileRuleFilters(filters)(context);
}

/**
 * True when at least one key of `filters` is a filter with an effect (a non-empty transaction or
 * user filter, or `checkDirection`). When false, {@link evaluateRuleFilters} always returns
 * `{ run: true, origin: true, destination: true }` and the engine may skip it.
 */
export function hasActiveFilters(filters: RuleFilters): boolean {
  return compileRuleFilters(filters).active;
}


/** The historical filters of an instance, compiled: see {@link compileHistoricalFilters}. */
export interface CompiledHistoricalFilters {
  /** Stable id of the filters' canonical form: equal filters, equal id (so equal series). */
  readonly id: string;
  /** The canonical JSON text of the non-empty historical filters. */
  readonly canonical: string;
  /** Whether a past transaction (in its current state) counts. Pure. */
  readonly accepts: (transaction: Transaction) => boolean;
}

/**
 * Compiles the historical filters of `filters` (already validated) into a predicate over a past
 * transaction; `null` when none is set. All set filters must pass (AND):
 * - `paymentMethodsHistorical`: the origin OR the destination payment method is listed;
 * - `transactionTypesHistorical`: the type is listed;
 * - `transactionStatesHistorical`: the current state (`CREATED` when none) is listed — events that
 *   change the state move the transaction in or out;
 * - `transactionCountriesHistorical`: the origin OR the destination amount country is listed;
 * - `transactionAmountRangeHistorical`: the origin amount lies in the range of its currency
 *   (inclusive, exact; a currency without a range fails), like `transactionAmountRange`;
 * - `transactionTimeRangeHistorical24hr`: the UTC time of day is in [start, end).
 *
 * The current transaction is held to the same filters: it counts in its own aggregates only when
 * it passes them.
 *
 * @example
 * ```ts
 * const h = compileHistoricalFilters({ transactionTypesHistorical: ['TRANSFER'] });
 * h?.accepts({ ...transaction, type: 'DEPOSIT' }); // false
 * ```
 */
export function compileHistoricalFilters(filters: RuleFilters): CompiledHistoricalFilters | null {
  const checks: TransactionCheck[] = [];
  const set: Record<string, unknown> = {};
  for (const key of HISTORICAL_FILTER_KEYS) if (!isEmptyValue(filters[key])) set[key] = filters[key];
  if (Object.keys(set).length === 0) return null;
  const methods = toSet(filters.paymentMethodsHistorical);
  if (methods !== null) {
    checks.push((t) => isIn(methods, t.originPaymentDetails?.method) || isIn(methods, t.destinationPaymentDetails?.method));
  }
  const types = toSet(filters.transactionTypesHistorical);
  if (types !== null) checks.push((t) => isIn(types, t.type));
  const states = toSet(filters.transactionStatesHistorical);
  if (states !== null) checks.push((t) => isIn(states, t.transactionState ?? 'CREATED'));
  const countries = toSet(filters.transactionCountriesHistorical);
  if (countries !== null) {
    checks.push((t) => isIn(countries, t.originAmountDetails?.country) || isIn(countries, t.destinationAmountDetails?.country));
  }
  const amount = isEmptyValue(filters.transactionAmountRangeHistorical) ? null : compileAmountRange(filters.transactionAmountRangeHistorical);
  if (amount !== null) checks.push(amount);
  const time = compileTimeRange(filters.transactionTimeRangeHistorical24hr);
  if (time !== null) checks.push(time);
  const canonical = canonicalJson(set);
  const accepts = (transaction: Transaction): boolean => {
    for (const check of checks) if (!check(transaction)) return false;
    return true;
  };
  return { id: filterIdOf(canonical), canonical, accepts };
}

/**
 * A stable id for a canonical JSON text: two independent 32-bit hashes (FNV-1a and a
 * multiply-xorshift one) in base 36, 64 bits in all.
 */
export function filterIdOf(canonicalText: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ canonicalText.length;
  for (let i = 0; i < canonicalText.length; i++) {
    const c = canonicalText.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/** The ids of the whitelists (`whitelistUsers.listIds`) that `filters` name. */
export function whitelistListIds(filters: RuleFilters): readonly string[] {
  return filters.whitelistUsers?.listIds ?? [];
}
