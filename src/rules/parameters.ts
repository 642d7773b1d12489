import { Type, type Static } from '@sinclair/typebox';
import { currencyExponent } from '../domain/codes.js';
import { convertAtRate, convertScaled, formatMoney, roundToMinorUnit, toScaled } from '../domain/money.js';
import { noteNoRate } from '../domain/not-evaluated.js';
import { SCHEMA_LIMITS } from '../domain/schemas/common.js';
import type { MoneyContext } from './types.js';

/**
 * Amount thresholds by currency, e.g. `{ "EUR": 10000 }`. A transaction in a listed currency is
 * compared in that currency; otherwise its amount is converted into the first listed currency.
 */
export function amountThresholdsSchema(options: { title?: string; description?: string; minProperties?: number } = {}) {
  return Type.Record(Type.String(), Type.Number({ minimum: 0, maximum: 1e15 }), {
    title: options.title ?? 'Amount thresholds',
    description: options.description ?? 'Threshold per currency (ISO 4217 code → amount). Other currencies are converted into the first listed one.',
    propertyNames: { format: 'currency-code' },
    ...(options.minProperties !== undefined ? { minProperties: options.minProperties } : {}),
  });
}
/** The plain thresholds schema (see {@link amountThresholdsSchema}). */
export const AmountThresholdsSchema = amountThresholdsSchema();
/** Amount thresholds by currency (see {@link amountThresholdsSchema}). */
export type AmountThresholds = Static<typeof AmountThresholdsSchema>;

/** Largest accepted number of transaction types per list. */
const MAX_TRANSACTION_TYPES = 100;

/** A non-empty list of distinct transaction `type`s, compared exactly (R-41, TXM-1). */
export function transactionTypesSchema(title: string, description: string) {
  return Type.Array(
    Type.String({
      minLength: 1,
      maxLength: SCHEMA_LIMITS.TRANSACTION_TYPE_MAX_LENGTH,
      title: 'Transaction type',
      description: 'A transaction `type` (e.g. DEPOSIT, WITHDRAWAL, TRANSFER), compared exactly.',
    }),
    { title, description, minItems: 1, maxItems: MAX_TRANSACTION_TYPES, uniqueItems: true },
  );
}

/** Which of the sender's transactions count: sending only, sending and receiving, or none. */
export const CheckSenderSchema = Type.Union([Type.Literal('sending'), Type.Literal('all'), Type.Literal('none')], {
  title: 'Check sender',
  description: "Which of the sender's transactions count: 'sending' (sent only), 'all' (sent and received) or 'none' (do not check the sender).",
});
/** Which of the receiver's transactions count: receiving only, both, or none. */
export const CheckReceiverSchema = Type.Union([Type.Literal('receiving'), Type.Literal('all'), Type.Literal('none')], {
  title: 'Check receiver',
  description: "Which of the receiver's transactions count: 'receiving' (received only), 'all' (sent and received) or 'none'.",
});
/** A `checkSender` parameter (see {@link CheckSenderSchema}). */
export type CheckSender = Static<typeof CheckSenderSchema>;
/** A `checkReceiver` parameter (see {@link CheckReceiverSchema}). */
export type CheckReceiver = Static<typeof CheckReceiverSchema>;

/** A money threshold resolved for one amount: both sides in the same currency, exact. */
export interface ResolvedThreshold {
  readonly amount: bigint;
  readonly threshold: bigint;
  readonly currency: string;
}

/**
 * Puts an amount and a thresholds map into one currency: the amount's own currency when the map
 * lists it, else the first listed currency (converted through the rate provider). `null` when the
 * map is empty or no rate exists — such a rule cannot decide and does not hit (a missing rate is
 * noted: the executed rule is marked not evaluated). A converted amount is rounded to the
 * threshold currency's minor unit before the comparison.
 *
 * A frozen map (the engine freezes instance parameters) is parsed once and cached by identity:
 * the hot path calls this for every transaction. Any other map is read afresh on every call.
 */
export function resolveThreshold(thresholds: AmountThresholds, amount: bigint, currency: string, money: MoneyContext, at: number): ResolvedThreshold | null {
  const parsed = parsedThresholds(thresholds);
  const own = parsed.byCurrency.get(currency);
  if (own !== undefined) return { amount, threshold: own, currency };
  const converted = inFirstCurrency(parsed, amount, currency, money, at);
  return converted === null ? null : { amount: converted, threshold: parsed.firstThreshold, currency: parsed.first as string };
}

/**
 * The threshold of a {@link resolveThreshold} result as a rule's description states it
 * (`formatMoney`). A listed threshold of a frozen map (an instance's parameters) is formatted once:
 * every hit of the instance states the same text.
 */
export function statedThreshold(thresholds: AmountThresholds, resolved: { readonly threshold: bigint; readonly currency: string }): string {
  const parsed = parsedThresholds(thresholds);
  if (parsed.stated === null || parsed.byCurrency.get(resolved.currency) !== resolved.threshold) return formatMoney(resolved.threshold, resolved.currency);
  let text = parsed.stated.get(resolved.currency);
  if (text === undefined) {
    text = formatMoney(resolved.threshold, resolved.currency);
    parsed.stated.set(resolved.currency, text);
  }
  return text;
}

/**
 * Whether `amount` reaches (≥) its threshold, resolved as {@link resolveThreshold} does; `false`
 * when it cannot be resolved (a missing rate noted, as there). Allocates nothing on the common paths: rules test this on every
 * transaction and call {@link resolveThreshold} only to describe a hit.
 */
export function reachesThreshold(thresholds: AmountThresholds, amount: bigint, currency: string, money: MoneyContext, at: number): boolean {
  const parsed = parsedThresholds(thresholds);
  const own = parsed.byCurrency.get(currency);
  if (own !== undefined) return amount >= own;
  const first = parsed.first;
  if (first === null) return false;
  const rate = money.rates.rate(currency, first, at);
  if (rate === null) {
    noteNoRate(currency, first);
    return false;
  }
  // A converted comparison is monotonic in the amount: for a rate seen before, the smallest
  // amount that reaches the threshold decides it with one comparison (no bigint conversion).
  const bounds = parsed.bounds;
  // (A negative rate, which no provider should give, is not monotonic the same way: converted.)
  if (bounds !== null && amount >= 0n && amount <= BOUND_CAP && rate.charCodeAt(0) !== 45 /* '-' */) {
    const bound = bounds.get(currency);
    if (bound !== undefined && bound.rate === rate) {
      if (bound.min === undefined) bound.min = smallestReaching(parsed, rate);
      return bound.min !== null && amount >= bound.min;
    }
    // First sight of this rate (or another rate than last time): remembered, and the bound is
    // computed only if the same rate comes again, so a provider whose rate moves on every call
    // never pays for a search.
    if (bounds.size >= MAX_BOUNDS && bound === undefined) bounds.clear();
    bounds.set(currency, { rate, min: undefined });
  }
  return reachesAtRate(parsed, amount, rate);
}

/** The converted comparison itself: `amount` at `rate`, rounded to the first currency's minor unit, ≥ its threshold. */
function reachesAtRate(parsed: ParsedThresholds, amount: bigint, rate: string): boolean {
  return roundToMinorUnit(convertAtRate(amount, rate), parsed.firstExponent) >= parsed.firstThreshold;
}

/** Amounts up to this (10^-8 units, ~1.2 × 10^16 whole units) are decided by a cached bound; larger ones are converted. */
const BOUND_CAP = 1n << 80n;
/** Currencies remembered per thresholds map (a map is compared against a handful in practice). */
const MAX_BOUNDS = 64;

/**
 * The smallest amount in [0, {@link BOUND_CAP}] that reaches the threshold at `rate`, or `null`
 * when none does. Exact: the comparison is monotonic (conversion and both roundings are
 * non-decreasing in the amount), so a binary search finds the boundary.
 */
function smallestReaching(parsed: ParsedThresholds, rate: string): bigint | null {
  if (reachesAtRate(parsed, 0n, rate)) return 0n;
  let hi = 1n;
  while (!reachesAtRate(parsed, hi, rate)) {
    if (hi >= BOUND_CAP) return null;
    hi *= 2n;
    if (hi > BOUND_CAP) hi = BOUND_CAP;
  }
  let lo = hi / 2n; // does not reach (0 was tested, and every smaller power of two)
  while (hi - lo > 1n) {
    const mid = (lo + hi) / 2n;
    if (reachesAtRate(parsed, mid, rate)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** A cached decision bound for one source currency: the rate text it holds for, and the smallest reaching amount (`undefined` until the rate is seen twice). */
interface RateBound {
  rate: string;
  min: bigint | null | undefined;
}

/**
 * `amount` converted into the map's first listed currency and rounded to its minor unit (a
 * converted amount is compared as it would be stated in that currency, never with fractions of
 * its smallest unit); `null` for an empty map or no rate.
 */
function inFirstCurrency(parsed: ParsedThresholds, amount: bigint, currency: string, money: MoneyContext, at: number): bigint | null {
  if (parsed.first === null) return null;
  const converted = convertScaled(amount, currency, parsed.first, money.rates, at);
  if (converted === null) {
    noteNoRate(currency, parsed.first);
    return null;
  }
  return roundToMinorUnit(converted, parsed.firstExponent);
}

/** A thresholds map read once: scaled thresholds by currency and the first listed currency. */
interface ParsedThresholds {
  readonly byCurrency: ReadonlyMap<string, bigint>;
  readonly first: string | null;
  readonly firstThreshold: bigint;
  readonly firstExponent: number;
  /** Per source currency, the bound of {@link reachesThreshold}; only for cached (frozen) maps. */
  readonly bounds: Map<string, RateBound> | null;
  /** Each listed threshold as a description states it (`formatMoney`), once made; only for cached maps. */
  readonly stated: Map<string, string> | null;
}
// Frozen maps cannot change: each is parsed once.
const parsedCache = new WeakMap<AmountThresholds, ParsedThresholds>();

function parsedThresholds(thresholds: AmountThresholds): ParsedThresholds {
  const frozen = Object.isFrozen(thresholds);
  let parsed = frozen ? parsedCache.get(thresholds) : undefined;
  if (parsed === undefined) {
    const byCurrency = new Map<string, bigint>();
    for (const currency of Object.keys(thresholds)) byCurrency.set(currency, toScaled(thresholds[currency] as number));
    const first = Object.keys(thresholds)[0] ?? null;
    parsed = {
      byCurrency,
      first,
      firstThreshold: first === null ? 0n : (byCurrency.get(first) as bigint),
      firstExponent: first === null ? 0 : currencyExponent(first),
      bounds: frozen ? new Map() : null,
      stated: frozen ? new Map() : null,
    };
    if (frozen) parsedCache.set(thresholds, parsed);
  }
  return parsed;
}
