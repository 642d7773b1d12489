/**
 * Compilation of the transaction and user filters of a rule instance (docs/wire-format.md#filters)
 * into one decision function per instance: sets and parsed bounds are built once, evaluation
 * allocates nothing.
 *
 * - transaction filters: all must pass or the instance does not run for the transaction;
 * - user filters: checked against the sender and the receiver separately; the instance runs when
 *   one of them passes all user filters, and only the sides that passed can be hit;
 * - `checkDirection` keeps only the ORIGIN or the DESTINATION side.
 */
import {
  parseCalendarDate,
  toScaled,
  type Age,
  type AmountBounds,
  type PaymentFilters,
  type RuleFilters,
  type TagsFilter,
  type TimeOfDay,
  type Transaction,
} from '../../domain/index.js';
import { isJsonObject } from '../../domain/json.js';
import { DAY_MS, MINUTE_MS } from '../../domain/time.js';
import type { RuleUser } from '../types.js';

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

/** A check of one transaction. */
export type TransactionCheck = (transaction: Transaction) => boolean;
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
  return isJsonObject(value) ? value[key] : undefined;
}

/** Whether `value` is a string in `set`. */
export function isIn(set: ReadonlySet<string>, value: unknown): boolean {
  return typeof value === 'string' && set.has(value);
}

/** The listed values as a set, or `null` when none is listed (an empty list is no filter). */
export function toSet(values: readonly string[] | undefined): ReadonlySet<string> | null {
  return values === undefined || values.length === 0 ? null : new Set(values);
}

/** Minutes since 00:00 UTC of a time of day. */
export function toMinuteOfDay(time: TimeOfDay): number {
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
    if (!isJsonObject(details)) return false;
    for (const check of checks) if (!check(details)) return false;
    return true;
  };
}

/**
 * An amount-range filter (currency → inclusive `{ min?, max? }`) as a check of the origin amount:
 * exact on scaled decimals; a currency without a range fails. `null` when no currency is listed.
 */
export function compileAmountRange(range: Record<string, AmountBounds> | undefined): TransactionCheck | null {
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

/**
 * A UTC time-of-day filter `[startTime, endTime)` as a check of the timestamp (an end before the
 * start wraps over midnight); `null` unless both ends are set.
 */
export function compileTimeRange(range: { startTime?: TimeOfDay; endTime?: TimeOfDay } | undefined): TransactionCheck | null {
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

function compileAgeRange(range: { minAge?: Age; maxAge?: Age } | undefined, startOf: (user: RuleUser) => number | null): UserCheck | null {
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
    checks.push(onProfile((profile) => isIn(registration, read(read(profile['legalEntity'], 'companyRegistrationDetails'), 'registrationCountry'))));
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

/**
 * The user filters of `filters` (already validated) as one check of a user at a time `at` (epoch
 * ms, what the age filters measure to): what a user rule's instance runs on. `null` when `filters`
 * has no user filter. A missing user fails, as in {@link compileRuleFilters}.
 */
export function compileUserFilters(filters: RuleFilters): ((user: RuleUser | null, at: number) => boolean) | null {
  const checks = compileUserChecks(filters);
  return checks.length === 0 ? null : (user, at) => passesUserChecks(checks, user, at);
}

const ALWAYS_PASS: CompiledRuleFilters = Object.assign(() => ALL_PASS, { active: false as const });

/**
 * Compiles `filters` (already validated) into a function of the transaction and its users: sets,
 * exact amount bounds and time ranges are built once. Historical filters are not part of it (see
 * {@link compileHistoricalFilters}). The result is pure; the engine keeps one per instance.
 *
 * Semantics (docs/wire-format.md#filters):
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

/** The ids of the whitelists (`whitelistUsers.listIds`) that `filters` name. */
export function whitelistListIds(filters: RuleFilters): readonly string[] {
  return filters.whitelistUsers?.listIds ?? [];
}
