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
import {
  HISTORICAL_FILTER_KEYS,
  RuleFiltersSchema,
  canonicalJson,
  parseCalendarDate,
  toScaled,
  type Age,
  type AmountBounds,
  type PaymentFilters,
  type RuleFilters,
  type TagsFilter,
  type TimeOfDay,
  type Transaction,
} from '../domain/index.js';
import { DAY_MS, MINUTE_MS } from '../domain/time.js';
import { TxmonError, type ErrorDetail } from '../errors.js';
import { appendPointer, assertSafeJson, collectSchemaErrors } from '../validation/index.js';
import type { RuleUser } from './types.js';

/** Path prefix of every validation detail: filters live under `/filters` of a rule-instance request. */
const BASE_PATH = '/filters';


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
