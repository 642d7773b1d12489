/**
 * Shared machinery of the standard-deviation anomaly rules: UTC calendar
 * day ranges, per-day needs, the exact "std-dev spike" test on bigint rationals, and
 * {@link defineAnomalyRule}, which builds each of the four rules from what sets it apart.
 *
 * The test: the mean of the daily values of the recent period is above the mean of the daily
 * values of the baseline plus 2 standard deviations (population standard deviation) of those
 * baseline values. It is decided without square roots or floats: with n baseline values of sum S
 * and sum of squares Q, and k recent values of sum R,
 *
 *   R/k − S/n > 2·√(Q/n − S²/n²)  ⇔  D > 0 ∧ D² > 4·k²·V,  where D = n·R − k·S and V = n·Q − S²
 *
 * (multiply both sides by k·n > 0; V/n² is the variance, so V ≥ 0).
 *
 * Periods (UTC calendar days; a day is [00:00, 24:00) UTC):
 * - the recent period is the {@link ANOMALY_RECENT_DAYS} days ending with the current
 *   transaction's day, that day counted up to and including the current transaction;
 * - the baseline is the {@link ANOMALY_BASELINE_DAYS} days just before the recent period. They do
 *   not overlap: the mean of a subset holding a fraction f of the values is at most σ·√((1 − f)/f)
 *   above the overall mean, so with a 90-day baseline containing the 30 recent days (f = 1/3,
 *   at most √2·σ) could never fire, and only when the recent days held
 *   fewer than a fifth of the baseline's active days.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AggregateFunction, AggregateValue } from '../../aggregation/aggregate-store.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { MONEY_SCALE } from '../../domain/money.js';
import { DAY_MS } from '../../domain/time.js';
import { defineRule } from '../define-rule.js';
import { exactDecimal } from './evidence.js';
import { createNeed } from './need.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

/** Days of the recent period (the current transaction's day and the 29 before it). */
export const ANOMALY_RECENT_DAYS = 30;
/** Days of the baseline: the days just before the recent period. */
export const ANOMALY_BASELINE_DAYS = 90;
/** The rule fires only when at least this many baseline days carry a value (have activity). */
export const ANOMALY_MIN_BASELINE_DAYS = 10;

/** A closed interval [start, end] of epoch ms (as aggregate needs take it). */
export interface DayRange {
  readonly start: number;
  readonly end: number;
}

/** A non-negative rational `num / den` with `den > 0`. */
export interface Rational {
  readonly num: bigint;
  readonly den: bigint;
}

/** The day ranges of one evaluation (see the module comment). */
export interface AnomalyDays {
  /** The whole recent period: [start of the first recent day, current transaction]. */
  readonly recent: DayRange;
  /** The recent days, newest first: `[0]` is the current day up to the current transaction. */
  readonly recentDays: readonly DayRange[];
  /** The baseline days, newest first: `[0]` is the day just before the recent period. */
  readonly baselineDays: readonly DayRange[];
}

const bits = new Float64Array(1);
const bitsAsInteger = new BigInt64Array(bits.buffer);

/** The largest double below `x` (finite `x`): the inclusive end of a half-open range ending at `x`. */
export function getPreviousDouble(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  bits[0] = x;
  bitsAsInteger[0] = x > 0 ? (bitsAsInteger[0] as bigint) - 1n : (bitsAsInteger[0] as bigint) + 1n;
  return bits[0] as number;
}

/**
 * 00:00:00.000 UTC of the day containing `t` (epoch ms, possibly fractional). The result is
 * checked against `t` (start ≤ t < start + 1 day), so a rounded division can never misplace a
 * `t` a fraction of a millisecond before midnight.
 */
export function getUtcDayStart(t: number): number {
  let day = Math.floor(t / DAY_MS) * DAY_MS;
  if (day > t) day -= DAY_MS;
  else if (day + DAY_MS <= t) day += DAY_MS;
  return day;
}

/** The day ranges of the anomaly rules for a transaction at `t`. */
export function computeAnomalyDays(t: number): AnomalyDays {
  const today = getUtcDayStart(t);
  const fullDay = (start: number): DayRange => ({ start, end: getPreviousDouble(start + DAY_MS) });
  const recentDays: DayRange[] = [{ start: today, end: t }];
  for (let i = 1; i < ANOMALY_RECENT_DAYS; i++) recentDays.push(fullDay(today - i * DAY_MS));
  const baselineDays: DayRange[] = [];
  for (let i = 0; i < ANOMALY_BASELINE_DAYS; i++) baselineDays.push(fullDay(today - (ANOMALY_RECENT_DAYS + i) * DAY_MS));
  return { recent: { start: today - (ANOMALY_RECENT_DAYS - 1) * DAY_MS, end: t }, recentDays, baselineDays };
}

/** Builds `count` need names `<prefix>:<i>` once (the rules read them on every transaction). */
export function createDayNames(prefix: string, count: number): readonly string[] {
  return Object.freeze(Array.from({ length: count }, (_, i) => `${prefix}:${i}`));
}

/** Options of {@link planDayNeeds} for `countIn`. */
export interface CountInOptions {
  readonly field: string;
  readonly values: readonly string[];
}

/**
 * One need per range on the sender's `user-sending` history (the current transaction included
 * where its timestamp falls, its stored earlier version excluded), appended to `out`.
 */
export function planDayNeeds(
  transaction: Transaction,
  names: readonly string[],
  ranges: readonly DayRange[],
  fn: AggregateFunction,
  out: AggregateNeed[],
  countIn?: CountInOptions,
): AggregateNeed[] {
  const key = transaction.originUserId;
  if (!key) return out;
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i] as DayRange;
    out.push(createNeed(names[i] as string, 'user-sending', key, range.start, range.end, fn, transaction.transactionId, true, countIn));
  }
  return out;
}

/** A `count`/`amountCount`/`countIn` value (0 when absent). */
export function readCount(aggregates: Readonly<Record<string, AggregateValue>>, name: string): bigint {
  const v = aggregates[name];
  return typeof v === 'number' ? BigInt(v) : 0n;
}

/** A `sum` value (0 when absent). */
export function readSum(aggregates: Readonly<Record<string, AggregateValue>>, name: string): bigint {
  const v = aggregates[name];
  return typeof v === 'bigint' ? v : 0n;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** `num / den` in lowest terms (`den > 0`). */
export function createRatio(num: bigint, den: bigint): Rational {
  const g = gcd(num, den);
  return g > 1n ? { num: num / g, den: den / g } : { num, den };
}

/** An integer as a {@link Rational}. */
export function toRational(value: bigint): Rational {
  return { num: value, den: 1n };
}

function add(a: Rational, b: Rational): Rational {
  if (a.den === b.den) return createRatio(a.num + b.num, a.den);
  return createRatio(a.num * b.den + b.num * a.den, a.den * b.den);
}

/** The exact sum of rationals, in lowest terms. */
export function sumRationals(values: readonly Rational[]): Rational {
  let total: Rational = { num: 0n, den: 1n };
  for (const v of values) total = add(total, v);
  return total;
}

/**
 * The baseline values from the per-day values, oldest first (`null` = a day without a value:
 * no activity). With `zeroFill` (daily volume and count, where a quiet day is a real 0) every
 * day from the first day with a value on counts, days before it are before the user's history;
 * without it (daily averages and shares, undefined on a quiet day) only days with a value count.
 */
export function collectDailyValues(daily: readonly (Rational | null)[], zeroFill: boolean): { values: Rational[]; activeDays: number } {
  const values: Rational[] = [];
  let activeDays = 0;
  for (const v of daily) {
    if (v !== null) {
      values.push(v);
      activeDays += 1;
    } else if (zeroFill && activeDays > 0) {
      values.push({ num: 0n, den: 1n });
    }
  }
  return { values, activeDays };
}

/** Input of {@link evaluateStdDevSpike}. */
export interface SpikeInput {
  /** The baseline's daily values. */
  readonly baseline: readonly Rational[];
  /** Sum of the recent period's daily values. */
  readonly recentSum: Rational;
  /** Number of recent daily values (> 0). */
  readonly recentDays: number;
}

/** Outcome of {@link evaluateStdDevSpike}: the decision and the exact statistics behind it. */
export interface SpikeResult {
  readonly hit: boolean;
  readonly recentMean: Rational;
  readonly baselineMean: Rational;
  /** Population variance of the baseline values. */
  readonly variance: Rational;
  /** How many values each mean is of: the recent days and the baseline days counted. */
  readonly recentDays: number;
  readonly baselineDays: number;
}

/**
 * The exact std-dev spike test (see the module comment): recent mean > baseline mean + 2σ.
 * `null` when either side has no value.
 */
export function evaluateStdDevSpike(input: SpikeInput): SpikeResult | null {
  const n = BigInt(input.baseline.length);
  const k = BigInt(input.recentDays);
  if (n === 0n || k <= 0n) return null;
  let s: Rational = { num: 0n, den: 1n };
  let q: Rational = { num: 0n, den: 1n };
  for (const v of input.baseline) {
    s = add(s, v);
    q = add(q, createRatio(v.num * v.num, v.den * v.den));
  }
  const r = input.recentSum;
  // D = n·R − k·S
  const d = createRatio(n * r.num * s.den - k * s.num * r.den, r.den * s.den);
  // V = n·Q − S²
  const v = createRatio(n * q.num * s.den * s.den - s.num * s.num * q.den, q.den * s.den * s.den);
  const hit = d.num > 0n && d.num * d.num * v.den > 4n * k * k * v.num * d.den * d.den;
  return {
    hit,
    recentMean: createRatio(r.num, r.den * k),
    baselineMean: createRatio(s.num, s.den * n),
    variance: createRatio(v.num, v.den * n * n),
    recentDays: input.recentDays,
    baselineDays: input.baseline.length,
  };
}

function integerSqrt(value: bigint): bigint {
  if (value < 2n) return value;
  // Newton's method from an upper bound (2^⌈bits/2⌉ ≥ √value).
  let x = 1n << BigInt(Math.ceil(value.toString(2).length / 2));
  for (;;) {
    const y = (x + value / x) >> 1n;
    if (y >= x) return x;
    x = y;
  }
}

function formatFixed(units: bigint, decimals: number): string {
  if (decimals === 0) return units.toString();
  const scale = 10n ** BigInt(decimals);
  return `${units / scale}.${(units % scale).toString().padStart(decimals, '0')}`;
}

/** `value × factor` rounded down to `decimals` places (descriptions only). */
export function formatRational(value: Rational, decimals: number, factor = 1n): string {
  const scale = 10n ** BigInt(decimals);
  return formatFixed((value.num * factor * scale) / value.den, decimals);
}

/** `√variance × factor` rounded down to `decimals` places, without floats (descriptions only). */
export function formatStdDev(variance: Rational, decimals: number, factor = 1n): string {
  const scale = 10n ** BigInt(decimals) * factor;
  return formatFixed(integerSqrt((variance.num * scale * scale) / variance.den), decimals);
}

/** A mean amount (10^-8 units of `currency`) rounded down to the cent, e.g. `123.45 EUR`. */
export function formatMeanAmount(value: Rational, currency: string): string {
  return `${formatFixed((value.num * 100n) / (value.den * MONEY_SCALE), 2)} ${currency}`;
}

/** A standard deviation of amounts (10^-8 units) rounded down to the cent, e.g. `12.34 EUR`. */
export function formatStdDevAmount(variance: Rational, currency: string): string {
  return `${formatStdDev({ num: variance.num, den: variance.den * MONEY_SCALE * MONEY_SCALE }, 2)} ${currency}`;
}

// ---------------------------------------------------------------------------------------------
// Evidence: the comparison written exactly, and rounded outward so that it reads true.
// ---------------------------------------------------------------------------------------------

/** Whether `den` (> 0) has no prime factor but 2 and 5: a fraction over it is a terminating decimal. */
function terminates(den: bigint): boolean {
  let d = den;
  while (d % 2n === 0n) d /= 2n;
  while (d % 5n === 0n) d /= 5n;
  return d === 1n;
}

/** An exact rational as text: a decimal when it terminates (`"12.5"`), else `p/q` in lowest terms (`"37/3"`). */
export function rationalText(value: Rational): string {
  const r = createRatio(value.num, value.den);
  return terminates(r.den) ? exactDecimal(r.num, r.den) : `${r.num}/${r.den}`;
}

/** `⌊num / den⌋` (`den > 0`), for either sign of `num`. */
function floorDiv(num: bigint, den: bigint): bigint {
  const q = num / den;
  return num < 0n && q * den !== num ? q - 1n : q;
}

/** `units / 10^decimals` as text with exactly `decimals` places (`15000n, 2` → `"150.00"`). */
function fixedText(units: bigint, decimals: number): string {
  const negative = units < 0n;
  const text = formatFixed(negative ? -units : units, decimals);
  return negative ? `-${text}` : text;
}

/**
 * `⌈(mean + 2·√variance) · scale⌉`, exactly: with A = mean·scale and W = 4·scale²·variance,
 * A + √W lies in [A + ⌊√W⌋, A + ⌊√W⌋ + 1), so the ceiling is N = ⌈A + ⌊√W⌋⌉ or N + 1; it is N
 * when N − A ≥ 0 and (N − A)² ≥ W.
 */
function ceilMeanPlusTwoSigma(mean: Rational, variance: Rational, scale: bigint): bigint {
  const a = mean.num * scale;
  const b = mean.den;
  const w = 4n * scale * scale * variance.num;
  const z = variance.den;
  const root = integerSqrt(w / z);
  const n = -floorDiv(-(a + root * b), b);
  const gap = n * b - a;
  return gap >= 0n && gap * gap * z >= w * b * b ? n : n + 1n;
}

/** A statistic in the unit the evidence shows: whole amounts (not 10^-8 units), percentages, numbers; `power` 2 for a variance. */
function inUnit(value: Rational, unit: AnomalyUnit, power: 1 | 2): Rational {
  if (unit === 'amount') return createRatio(value.num, value.den * (power === 1 ? MONEY_SCALE : MONEY_SCALE * MONEY_SCALE));
  if (unit === 'percent') return createRatio(value.num * (power === 1 ? 100n : 10_000n), value.den);
  return value;
}

/**
 * The evidence of a spike: `value` the recent mean rounded down and `limit` the baseline mean plus
 * 2 standard deviations rounded up, both to the fewest decimal places from 2 to 12 at which the
 * rounded value is still above the rounded limit (else the first of 24, 48, … that separates
 * them), so the comparison reads as the rule decided it;
 * and the exact statistics the rule compared (`recentMean > baselineMean` and `(recentMean −
 * baselineMean)² > 4·baselineVariance`) as exact rationals ({@link rationalText}), with the
 * periods and the number of daily values each mean is of.
 */
export function spikeEvidence(spike: SpikeResult, spec: Pick<AnomalyRuleSpec, 'unit' | 'evidenceField'>, days: AnomalyDays, currency: string): RuleEvidence {
  const recent = inUnit(spike.recentMean, spec.unit, 1);
  const mean = inUnit(spike.baselineMean, spec.unit, 1);
  const variance = inUnit(spike.variance, spec.unit, 2);
  let decimals = 2;
  let scale = 100n;
  let value = floorDiv(recent.num * scale, recent.den);
  let limit = ceilMeanPlusTwoSigma(mean, variance, scale);
  // The rule's comparison is strict, so some precision separates them; it ends. Place by place at
  // first, then doubling (a gap of 10^-k takes about log k more steps): operands of any size stay cheap.
  while (value <= limit) {
    const more = decimals < 12 ? 1 : decimals;
    decimals += more;
    scale *= 10n ** BigInt(more);
    value = floorDiv(recent.num * scale, recent.den);
    limit = ceilMeanPlusTwoSigma(mean, variance, scale);
  }
  const oldest = days.baselineDays[days.baselineDays.length - 1] as DayRange;
  const newest = days.baselineDays[0] as DayRange;
  const item: Record<string, unknown> = {
    direction: 'ORIGIN',
    kind: 'stdDevSpike',
    field: spec.evidenceField,
    value: fixedText(value, decimals),
    comparison: '>',
    limit: fixedText(limit, decimals),
  };
  if (spec.unit === 'amount') item.currency = currency;
  item.recentMean = rationalText(recent);
  item.baselineMean = rationalText(mean);
  item.baselineVariance = rationalText(variance);
  item.window = { start: days.recent.start, end: days.recent.end, units: ANOMALY_RECENT_DAYS, granularity: 'day', rolling: false };
  item.recentDays = spike.recentDays;
  item.referenceWindow = { start: oldest.start, end: newest.end, units: ANOMALY_BASELINE_DAYS, granularity: 'day', rolling: false };
  item.referenceDays = spike.baselineDays;
  return item as RuleEvidence;
}

// ---------------------------------------------------------------------------------------------
// Declaring an anomaly rule.
// ---------------------------------------------------------------------------------------------

/** Parameters of an anomaly rule: none (the periods and the 2 standard deviations are fixed). */
export function anomalyParametersSchema(id: string) {
  return Type.Object(
    {},
    {
      additionalProperties: false,
      title: `${id} parameters`,
      description: 'None: the periods (30 recent days, 90 baseline days before them) and the 2 standard deviations are fixed.',
    },
  );
}
/** The (empty) parameters of an anomaly rule. */
export type AnomalyParameters = Static<ReturnType<typeof anomalyParametersSchema>>;

/** One per-day aggregate of an {@link AnomalyRatio}. */
export interface AnomalyDayAggregate {
  /** Letter of its need names: `<prefix>:r<tag>:<i>` (recent day i), `<prefix>:b<tag>:<i>` (baseline day i). */
  readonly tag: string;
  /** `sum` is read as a bigint amount, the others as counts. */
  readonly fn: 'sum' | 'count' | 'amountCount' | 'countIn';
  readonly countIn?: CountInOptions;
}

/**
 * A day's value that is a total of the day (volume, count): a quiet day is a real 0, and the recent
 * mean is the recent period's total over its {@link ANOMALY_RECENT_DAYS} days (one need,
 * `<prefix>:recent`; baseline days `<prefix>:b:<i>`).
 */
export interface AnomalyTotal {
  readonly kind: 'total';
  readonly fn: 'sum' | 'count';
}

/**
 * A day's value that is a ratio of two aggregates of the day (average amount, share): undefined on
 * a day whose denominator is 0, so such days are left out of both means, recent days included.
 */
export interface AnomalyRatio {
  readonly kind: 'ratio';
  readonly numerator: AnomalyDayAggregate;
  readonly denominator: AnomalyDayAggregate;
  /** Plan the denominator's needs before the numerator's (each period): only the order of the needs. */
  readonly denominatorFirst?: boolean;
}

/** How the statistics are shown in the hit description (two decimals, rounded down). */
export type AnomalyUnit =
  /** Amounts of 10^-8 units, in the base currency (`123.45 EUR`). */
  | 'amount'
  /** Plain numbers (`3.25`). */
  | 'number'
  /** Shares 0..1 as percentages without the sign (`12.50`). */
  | 'percent';

/** What sets one anomaly rule apart (see {@link defineAnomalyRule}). */
export interface AnomalyRuleSpec
  extends Pick<RuleDefinition<AnomalyParameters>, 'id' | 'name' | 'description' | 'descriptionTemplate' | 'checksFor' | 'types' | 'typologies'> {
  /** Prefix of the need names (`r11`), keeping the rules' needs apart. */
  readonly prefix: string;
  /** What a day's value is. */
  readonly daily: AnomalyTotal | AnomalyRatio;
  readonly unit: AnomalyUnit;
  /** The evidence's `field`: the daily value the means are of (`dailyVolume`). */
  readonly evidenceField: string;
}

function readDayValue(aggregates: Readonly<Record<string, AggregateValue>>, name: string, fn: AnomalyDayAggregate['fn']): bigint {
  return fn === 'sum' ? readSum(aggregates, name) : readCount(aggregates, name);
}

/** How one kind of daily value is planned and turned into a spike. */
interface DailyMeasure {
  plan(transaction: Transaction, days: AnomalyDays, out: AggregateNeed[]): AggregateNeed[];
  /** The spike, or `null` with too few baseline days (or no recent value). */
  evaluate(aggregates: Readonly<Record<string, AggregateValue>>): SpikeResult | null;
}

function createTotalMeasure(prefix: string, total: AnomalyTotal): DailyMeasure {
  const recent = `${prefix}:recent`;
  const baselineNames = createDayNames(`${prefix}:b`, ANOMALY_BASELINE_DAYS);
  return {
    plan(transaction, days, out) {
      planDayNeeds(transaction, [recent], [days.recent], total.fn, out);
      return planDayNeeds(transaction, baselineNames, days.baselineDays, total.fn, out);
    },
    evaluate(aggregates) {
      const daily: (Rational | null)[] = [];
      // Oldest first.
      for (let i = ANOMALY_BASELINE_DAYS - 1; i >= 0; i--) {
        const value = readDayValue(aggregates, baselineNames[i] as string, total.fn);
        daily.push(value > 0n ? toRational(value) : null);
      }
      const baseline = collectDailyValues(daily, true);
      if (baseline.activeDays < ANOMALY_MIN_BASELINE_DAYS) return null;
      const recentSum = toRational(readDayValue(aggregates, recent, total.fn));
      return evaluateStdDevSpike({ baseline: baseline.values, recentSum, recentDays: ANOMALY_RECENT_DAYS });
    },
  };
}

/** The day names of one period of a ratio: numerator and denominator need per day, newest first. */
interface RatioDayNames {
  readonly numerators: readonly string[];
  readonly denominators: readonly string[];
}

function createRatioMeasure(prefix: string, ratio: AnomalyRatio): DailyMeasure {
  const { numerator, denominator } = ratio;
  const namesOf = (period: 'r' | 'b', days: number): RatioDayNames => ({
    numerators: createDayNames(`${prefix}:${period}${numerator.tag}`, days),
    denominators: createDayNames(`${prefix}:${period}${denominator.tag}`, days),
  });
  const recent = namesOf('r', ANOMALY_RECENT_DAYS);
  const baseline = namesOf('b', ANOMALY_BASELINE_DAYS);
  const planPeriod = (transaction: Transaction, ranges: readonly DayRange[], names: RatioDayNames, out: AggregateNeed[]) => {
    const parts: [AnomalyDayAggregate, readonly string[]][] = [
      [numerator, names.numerators],
      [denominator, names.denominators],
    ];
    if (ratio.denominatorFirst === true) parts.reverse();
    for (const [part, partNames] of parts) planDayNeeds(transaction, partNames, ranges, part.fn, out, part.countIn);
  };
  /** Daily ratios, oldest first; `null` for a day whose denominator is 0. */
  const readRatios = (aggregates: Readonly<Record<string, AggregateValue>>, names: RatioDayNames) => {
    const out: (Rational | null)[] = [];
    for (let i = names.numerators.length - 1; i >= 0; i--) {
      const den = readDayValue(aggregates, names.denominators[i] as string, denominator.fn);
      out.push(den > 0n ? createRatio(readDayValue(aggregates, names.numerators[i] as string, numerator.fn), den) : null);
    }
    return out;
  };
  return {
    plan(transaction, days, out) {
      planPeriod(transaction, days.recentDays, recent, out);
      planPeriod(transaction, days.baselineDays, baseline, out);
      return out;
    },
    evaluate(aggregates) {
      const base = collectDailyValues(readRatios(aggregates, baseline), false);
      if (base.activeDays < ANOMALY_MIN_BASELINE_DAYS) return null;
      const recentValues = collectDailyValues(readRatios(aggregates, recent), false).values;
      return evaluateStdDevSpike({ baseline: base.values, recentSum: sumRationals(recentValues), recentDays: recentValues.length });
    },
  };
}

/** The hit values of a spike: periods, means and standard deviation in the rule's unit. */
function describeSpike(spike: SpikeResult, unit: AnomalyUnit, currency: string): Record<string, string | number> {
  const factor = unit === 'percent' ? 100n : 1n;
  const mean = (value: Rational) => (unit === 'amount' ? formatMeanAmount(value, currency) : formatRational(value, 2, factor));
  return {
    recentDays: ANOMALY_RECENT_DAYS,
    baselineDays: ANOMALY_BASELINE_DAYS,
    recentMean: mean(spike.recentMean),
    baselineMean: mean(spike.baselineMean),
    stdDev: unit === 'amount' ? formatStdDevAmount(spike.variance, currency) : formatStdDev(spike.variance, 2, factor),
  };
}

/**
 * Declares a std-dev anomaly rule (see the module comment): it hits the sender (ORIGIN only) when
 * the mean of the recent period's daily values is above the baseline's mean daily value plus 2
 * standard deviations, once at least {@link ANOMALY_MIN_BASELINE_DAYS} baseline days carry a
 * value. No sender → no needs and no hit. The needs read the sender's `user-sending` history.
 * Every anomaly rule flags fraud (`FLAG` / `FRAUD`) and takes no parameters.
 */
export function defineAnomalyRule(spec: AnomalyRuleSpec): RuleDefinition<AnomalyParameters> {
  const measure = spec.daily.kind === 'total' ? createTotalMeasure(spec.prefix, spec.daily) : createRatioMeasure(spec.prefix, spec.daily);
  return defineRule({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema: anomalyParametersSchema(spec.id),
    defaultParameters: {},
    defaultAction: 'FLAG',
    defaultNature: 'FRAUD',
    checksFor: spec.checksFor,
    types: spec.types,
    typologies: spec.typologies,
    series: ['user-sending'],
    aggregates({ transaction }) {
      if (!transaction.originUserId) return [];
      return measure.plan(transaction, computeAnomalyDays(transaction.timestamp), []);
    },
    check({ transaction, aggregates, money }): RuleHit[] {
      if (!transaction.originUserId) return [];
      const spike = measure.evaluate(aggregates);
      if (!spike?.hit) return [];
      const evidence = [spikeEvidence(spike, spec, computeAnomalyDays(transaction.timestamp), money.baseCurrency)];
      return [{ direction: 'ORIGIN', vars: describeSpike(spike, spec.unit, money.baseCurrency), evidence }];
    },
  });
}
