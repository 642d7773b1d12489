/**
 * The two-period comparison rules: a statistic of a user's recent
 * period (period 1) is compared with the same statistic of a reference period (period 2); both end
 * at the current transaction and include it. This kit holds their parameters schema, the planning
 * of two nested windows per side, the reading of period stats (period 2 without period 1 as the
 * difference of nested windows), exact ratio comparisons in bigint, the per-side check loop
 * ({@link checkTwoPeriods}) and {@link defineTwoPeriodRule}, which declares such a rule from what
 * sets it apart. R-131 (a count against the period before) shares {@link periodSchema}.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { formatMoney, MONEY_SCALE, toScaled } from '../../domain/money.js';
import { TimeWindowSchema, type TimeWindow } from '../../domain/schemas/time-window.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../../domain/time.js';
import { defineRule, needNamePrefix } from '../define-rule.js';
import { CheckReceiverSchema, CheckSenderSchema, resolveThreshold, type CheckReceiver, type CheckSender } from '../parameters.js';
import type { AggregateNeed, MoneyContext, RuleDefinition, RuleHit } from '../types.js';
import { evidenceWindow } from './evidence.js';
import { createSideNames, describeSide, getSideReads, planSides, sideSeries, sumAmounts, sumCounts, USER_SERIES, type SideNames } from './directions.js';

const DAY = BigInt(DAY_MS);
/** Lengths of the units whose rolling windows have a fixed length. */
const FIXED_UNIT_MS: Readonly<Record<string, number>> = { second: SECOND_MS, minute: MINUTE_MS, hour: HOUR_MS, day: DAY_MS, week: 7 * DAY_MS };

/** Schema of a period (a time window ending at the current transaction) with its own title. */
export function periodSchema(title: string, description: string) {
  return Type.Object(TimeWindowSchema.properties, { additionalProperties: false, title, description });
}

/** Schema of an optional inclusive `{ min?, max? }` range of transaction counts. */
export function countRangeSchema(title: string, description: string) {
  return Type.Object(
    {
      min: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 1_000_000_000, title: 'Minimum', description: 'No hit below this many transactions (inclusive bound).' }),
      ),
      max: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 1_000_000_000, title: 'Maximum', description: 'No hit above this many transactions (inclusive bound).' }),
      ),
    },
    { additionalProperties: false, title, description },
  );
}

/** Schema of an optional inclusive `{ min?, max? }` range of a decimal value. */
export function valueRangeSchema(title: string, description: string) {
  return Type.Object(
    {
      min: Type.Optional(Type.Number({ minimum: 0, maximum: 1e15, title: 'Minimum', description: 'No hit when the value is below this (inclusive bound).' })),
      max: Type.Optional(Type.Number({ minimum: 0, maximum: 1e15, title: 'Maximum', description: 'No hit when the value is above this (inclusive bound).' })),
    },
    { additionalProperties: false, title, description },
  );
}

/**
 * How every percentage multiplier states its unit (R-27, R-120–R-122; R-131's is a factor and says
 * so): fractional values are allowed and compared exactly.
 */
export const PERCENT_UNIT = 'A percentage, not a factor (200 = twice, 150.5 = 1.505 times); fractional values are compared exactly (to 10^-8).';

/** Schema of a `{ currency, value }` multiplier threshold (value in percent). */
export function moneyMultiplierSchema(description: string) {
  return Type.Object(
    {
      currency: Type.String({
        format: 'currency-code',
        title: 'Currency',
        description: 'Currency of the period-1 value range and of the amounts shown in the hit description. The ratio itself does not depend on it.',
      }),
      value: Type.Number({ minimum: 0, maximum: 1_000_000, title: 'Multiplier (%)', description: `${description} ${PERCENT_UNIT}` }),
    },
    { additionalProperties: false, title: 'Multiplier threshold (%)', description: `${description} ${PERCENT_UNIT}` },
  );
}

/** Schema of the `excludePeriod1` flag. */
export const ExcludePeriod1Schema = Type.Boolean({
  title: 'Exclude period 1 from period 2',
  description:
    'When true, period 2 only covers the time before period 1 (computed as period 2 minus period 1, both ending at this transaction). Either way period 2 must start before period 1 and hold at least one transaction before it, otherwise the rule does not hit.',
});

/** What the parameters schemas of the two-period rules differ in. */
export interface TwoPeriodSchemaSpec<M extends TSchema> {
  /** The rule id, for the schema title (`R-27 parameters`). */
  readonly id: string;
  /** Description of period 2 (period 1's is the same for every rule). */
  readonly period2Description: string;
  /** The schema of `multiplierThreshold` (a percentage, possibly with a currency). */
  readonly multiplierThreshold: M;
  /** Title and description of the optional period-1 value range (`valueThresholdPeriod1`). */
  readonly valueThresholdPeriod1: { readonly title: string; readonly description: string };
}

/**
 * The parameters schema of a two-period rule: `period1`, `period2`, `multiplierThreshold`,
 * `checkSender`, `checkReceiver` and the optional `excludePeriod1`, `transactionsNumberThreshold`
 * (period 1), `transactionsNumberThreshold2` (period 2) and `valueThresholdPeriod1`.
 */
export function twoPeriodParametersSchema<M extends TSchema>(spec: TwoPeriodSchemaSpec<M>) {
  return Type.Object(
    {
      period1: periodSchema('Period 1', 'The recent period, ending at (and including) this transaction.'),
      period2: periodSchema('Period 2', spec.period2Description),
      multiplierThreshold: spec.multiplierThreshold,
      checkSender: CheckSenderSchema,
      checkReceiver: CheckReceiverSchema,
      excludePeriod1: Type.Optional(ExcludePeriod1Schema),
      transactionsNumberThreshold: Type.Optional(
        countRangeSchema('Transactions number (period 1)', 'No hit when the number of transactions in period 1 (this one included) is outside this range.'),
      ),
      transactionsNumberThreshold2: Type.Optional(
        countRangeSchema('Transactions number (period 2)', 'No hit when the number of transactions in period 2 is outside this range.'),
      ),
      valueThresholdPeriod1: Type.Optional(valueRangeSchema(spec.valueThresholdPeriod1.title, spec.valueThresholdPeriod1.description)),
    },
    { additionalProperties: false, title: `${spec.id} parameters` },
  );
}

/** The parameters every two-period rule shares. */
export interface TwoPeriodParameters {
  readonly period1: TimeWindow;
  readonly period2: TimeWindow;
  readonly checkSender: CheckSender;
  readonly checkReceiver: CheckReceiver;
  readonly excludePeriod1?: boolean;
  readonly transactionsNumberThreshold?: { readonly min?: number; readonly max?: number };
  readonly transactionsNumberThreshold2?: { readonly min?: number; readonly max?: number };
}

/** What a side saw in one period. */
export interface PeriodStats {
  /** Transactions in the period (the current one included in period 1, and in period 2 unless excluded). */
  readonly count: number;
  /** Of those, the ones with an amount in the base currency (the divisor of an average amount). */
  readonly amountCount: number;
  /** Exact volume in the base currency (10^-8 units). */
  readonly sum: bigint;
  /** Length of the period in ms (see {@link measurePeriodLengthMs}); may be 0. */
  readonly lengthMs: bigint;
}

/** A non-negative rational `num / den` (den > 0) of 10^-8 units. */
export interface Ratio {
  readonly num: bigint;
  readonly den: bigint;
}

/** The need names of a two-period rule, one set per aggregate and period. */
export interface TwoPeriodNames {
  readonly count1: SideNames;
  readonly count2: SideNames;
  readonly sum1: SideNames;
  readonly sum2: SideNames;
  readonly amountCount1: SideNames;
  readonly amountCount2: SideNames;
}

/** Builds the need names of a two-period rule (one prefix per rule keeps rules apart in logs). */
export function createTwoPeriodNames(prefix: string): TwoPeriodNames {
  return Object.freeze({
    count1: createSideNames(`${prefix}c1`),
    count2: createSideNames(`${prefix}c2`),
    sum1: createSideNames(`${prefix}s1`),
    sum2: createSideNames(`${prefix}s2`),
    amountCount1: createSideNames(`${prefix}a1`),
    amountCount2: createSideNames(`${prefix}a2`),
  });
}

/**
 * Length of a window in ms: the nominal `units × unit` for fixed-length rolling windows (second,
 * minute, hour, and day/week with `rollingBasis`), else the elapsed time `end − start` rounded to
 * the millisecond (calendar-aligned windows: so far in the current calendar unit(s); rolling
 * months/years: the calendar length).
 */
export function measurePeriodLengthMs(window: TimeWindow, start: number, end: number): bigint {
  const unit = FIXED_UNIT_MS[window.granularity];
  const fixed = window.granularity === 'second' || window.granularity === 'minute' || window.granularity === 'hour' || window.rollingBasis === true;
  if (unit !== undefined && fixed) return BigInt(window.units) * BigInt(unit);
  return BigInt(Math.max(0, Math.round(end - start)));
}

/** Plans the needs of both sides over both periods (`sum`/`amountCount` only when `withAmounts`). */
export function planTwoPeriods(transaction: Transaction, parameters: TwoPeriodParameters, names: TwoPeriodNames, withAmounts: boolean): AggregateNeed[] {
  const end = transaction.timestamp;
  const w1 = { start: windowStart(end, parameters.period1), end };
  const w2 = { start: windowStart(end, parameters.period2), end };
  const { checkSender: s, checkReceiver: r } = parameters;
  const out: AggregateNeed[] = [];
  planSides(transaction, s, r, names.count1, w1, 'count', true, out);
  planSides(transaction, s, r, names.count2, w2, 'count', true, out);
  if (withAmounts) {
    planSides(transaction, s, r, names.sum1, w1, 'sum', true, out);
    planSides(transaction, s, r, names.sum2, w2, 'sum', true, out);
    planSides(transaction, s, r, names.amountCount1, w1, 'amountCount', true, out);
    planSides(transaction, s, r, names.amountCount2, w2, 'amountCount', true, out);
  }
  return out;
}

/**
 * The two periods of one side, or `null` when the side is not checked / has no user, when period 2
 * does not start before period 1, or when period 2 holds no transaction before period 1 (no
 * history to compare with: a user's first transactions never hit). With `excludePeriod1`, period
 * 2's values are the nested difference [start2, t] − [start1, t] (exact, no boundary tricks).
 */
export function readTwoPeriods(
  transaction: Transaction,
  parameters: TwoPeriodParameters,
  aggregates: Readonly<Record<string, AggregateValue>>,
  names: TwoPeriodNames,
  direction: 'ORIGIN' | 'DESTINATION',
): { period1: PeriodStats; period2: PeriodStats } | null {
  const reads = (n: SideNames) => getSideReads(transaction, parameters, n, direction);
  const c1 = reads(names.count1);
  const c2 = reads(names.count2);
  if (!c1 || !c2) return null;
  const end = transaction.timestamp;
  const start1 = windowStart(end, parameters.period1);
  const start2 = windowStart(end, parameters.period2);
  if (!(start2 < start1)) return null;
  const period1: PeriodStats = {
    count: sumCounts(aggregates, c1),
    amountCount: sumCounts(aggregates, reads(names.amountCount1) ?? []),
    sum: sumAmounts(aggregates, reads(names.sum1) ?? []),
    lengthMs: measurePeriodLengthMs(parameters.period1, start1, end),
  };
  const whole: PeriodStats = {
    count: sumCounts(aggregates, c2),
    amountCount: sumCounts(aggregates, reads(names.amountCount2) ?? []),
    sum: sumAmounts(aggregates, reads(names.sum2) ?? []),
    lengthMs: measurePeriodLengthMs(parameters.period2, start2, end),
  };
  const before: PeriodStats = {
    count: whole.count - period1.count,
    amountCount: whole.amountCount - period1.amountCount,
    sum: whole.sum - period1.sum,
    lengthMs: whole.lengthMs - period1.lengthMs,
  };
  if (before.count <= 0 || before.lengthMs <= 0n) return null;
  return { period1, period2: parameters.excludePeriod1 === true ? before : whole };
}

/** `true` when `count` is inside the optional inclusive range. */
export function isCountInRange(count: number, range: { readonly min?: number; readonly max?: number } | undefined): boolean {
  if (!range) return true;
  if (range.min !== undefined && count < range.min) return false;
  if (range.max !== undefined && count > range.max) return false;
  return true;
}

/** `true` when the ratio `value` (10^-8 units) is inside the optional inclusive decimal range. */
export function isRatioInRange(value: Ratio, range: { readonly min?: number; readonly max?: number } | undefined): boolean {
  if (!range) return true;
  if (range.min !== undefined && value.num < toScaled(range.min) * value.den) return false;
  if (range.max !== undefined && value.num > toScaled(range.max) * value.den) return false;
  return true;
}

/**
 * `stat1 ≥ percent % × stat2`, exactly: `num1 × den2 × 100 ≥ percent × num2 × den1` (percent
 * taken at 10^-8 precision). Callers ensure `stat2 > 0`.
 */
export function isAtLeastPercentOf(stat1: Ratio, stat2: Ratio, percent: number): boolean {
  return stat1.num * stat2.den * 100n * MONEY_SCALE >= toScaled(percent) * stat2.num * stat1.den;
}

/** A ratio as a percentage with two decimals, rounded down (for descriptions only). */
export function formatPercent(stat1: Ratio, stat2: Ratio): string {
  const hundredths = (stat1.num * stat2.den * 10_000n) / (stat2.num * stat1.den);
  return `${hundredths / 100n}.${(hundredths % 100n).toString().padStart(2, '0')}%`;
}

/** A base-currency amount in `currency`, rounded to its minor unit; `null` without a rate. */
export function convertFromBase(amount: bigint, currency: string, money: MoneyContext, at: number): bigint | null {
  return resolveThreshold({ [currency]: 0 }, amount, money.baseCurrency, money, at)?.amount ?? null;
}

/** A base-currency amount formatted in `currency` (or in the base currency without a rate). */
export function formatInCurrency(amount: bigint, currency: string, money: MoneyContext, at: number): string {
  const converted = convertFromBase(amount, currency, money, at);
  return converted === null ? formatMoney(amount, money.baseCurrency) : formatMoney(converted, currency);
}

/** Per-day value of `amount` (10^-8 units) over `lengthMs`, as a {@link Ratio}. */
export function perDay(amount: bigint, lengthMs: bigint): Ratio {
  return { num: amount * DAY, den: lengthMs };
}

/** The two statistics one side compares (period 1's against period 2's). */
export interface PeriodStatPair {
  readonly stat1: Ratio;
  readonly stat2: Ratio;
}

/** What a two-period rule compares (see {@link checkTwoPeriods}). */
export interface TwoPeriodComparison {
  /** The statistics of a side, or `null` when the side cannot hit (a zero divisor, a value out of range). */
  compare(period1: PeriodStats, period2: PeriodStats): PeriodStatPair | null;
  /** Names of the hit values that show `stat1` and `stat2` (e.g. `volume1`, `volume2`). */
  readonly vars: readonly [string, string];
  /** Shows a statistic in the hit description. */
  format(stat: Ratio): string;
}

/**
 * The hits of a two-period rule. For each side: its periods ({@link readTwoPeriods}; none → no
 * hit), the optional count ranges of both periods, the rule's statistics, then a hit when
 * `stat1 ≥ percent % × stat2` ({@link isAtLeastPercentOf}). A hit's values are `side`, `period1`,
 * `period2`, the two statistics under the rule's names, `ratio` and `multiplier` (= `percent`).
 */
export function checkTwoPeriods(
  transaction: Transaction,
  parameters: TwoPeriodParameters,
  aggregates: Readonly<Record<string, AggregateValue>>,
  names: TwoPeriodNames,
  percent: number,
  comparison: TwoPeriodComparison,
): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
    const periods = readTwoPeriods(transaction, parameters, aggregates, names, direction);
    if (!periods) continue;
    const { period1, period2 } = periods;
    if (!isCountInRange(period1.count, parameters.transactionsNumberThreshold)) continue;
    if (!isCountInRange(period2.count, parameters.transactionsNumberThreshold2)) continue;
    const stats = comparison.compare(period1, period2);
    if (!stats || !isAtLeastPercentOf(stats.stat1, stats.stat2, percent)) continue;
    const [var1, var2] = comparison.vars;
    const end = transaction.timestamp;
    // The two statistics and their ratio against the multiplier (the comparison itself is exact;
    // the ratio shown is cut to hundredths of a percent, as in the description).
    const evidence = {
      direction,
      kind: 'pastPeriod',
      value: formatPercent(stats.stat1, stats.stat2).slice(0, -1),
      comparison: '>=',
      limit: percent,
      statistic1: comparison.format(stats.stat1),
      statistic2: comparison.format(stats.stat2),
      window: evidenceWindow(windowStart(end, parameters.period1), end, parameters.period1),
      transactionCount: period1.count,
      referenceWindow: evidenceWindow(windowStart(end, parameters.period2), end, parameters.period2),
      referenceCount: period2.count,
      // With excludePeriod1, period 2's statistic leaves period 1's transactions out.
      referenceExcludesWindow: parameters.excludePeriod1 === true,
    } as RuleEvidence;
    hits.push({
      evidence: [evidence],
      direction,
      vars: {
        side: describeSide(direction),
        period1: describeTimeWindow(parameters.period1),
        period2: describeTimeWindow(parameters.period2),
        [var1]: comparison.format(stats.stat1),
        [var2]: comparison.format(stats.stat2),
        ratio: formatPercent(stats.stat1, stats.stat2),
        multiplier: percent,
      },
    });
  }
  return hits;
}

/** A statistic of a period's volume (see {@link createVolumeComparison}). */
export interface VolumeStatistic {
  /** Names of the hit values that show the statistic of period 1 and of period 2. */
  readonly vars: readonly [string, string];
  /** Whether the periods can be compared: the divisors of both statistics and period 2's volume are positive. */
  isComparable(period1: PeriodStats, period2: PeriodStats): boolean;
  /** The statistic of `period` for a volume (10^-8 units), e.g. volume ÷ the period's days. */
  toStat(volume: bigint, period: PeriodStats): Ratio;
}

/**
 * The comparison of a volume statistic (R-27 volume, R-120 average amount, R-122 daily volume):
 * `null` unless the periods are comparable, or when `valueThresholdPeriod1` is set and period 1's
 * volume — converted into the multiplier currency, rounded to its minor unit, then made the
 * statistic — is outside it or has no rate. Statistics are shown in the multiplier currency.
 */
export function createVolumeComparison(
  parameters: {
    readonly multiplierThreshold: { readonly currency: string };
    readonly valueThresholdPeriod1?: { readonly min?: number; readonly max?: number };
  },
  money: MoneyContext,
  at: number,
  statistic: VolumeStatistic,
): TwoPeriodComparison {
  const { currency } = parameters.multiplierThreshold;
  const range = parameters.valueThresholdPeriod1;
  return {
    compare(period1, period2) {
      if (!statistic.isComparable(period1, period2)) return null;
      if (range) {
        const converted = convertFromBase(period1.sum, currency, money, at);
        if (converted === null || !isRatioInRange(statistic.toStat(converted, period1), range)) return null;
      }
      return { stat1: statistic.toStat(period1.sum, period1), stat2: statistic.toStat(period2.sum, period2) };
    },
    vars: statistic.vars,
    format: (stat) => formatInCurrency(stat.num / stat.den, currency, money, at),
  };
}

// ---------------------------------------------------------------------------------------------
// Declaring a two-period rule.
// ---------------------------------------------------------------------------------------------

/** The parameters schema of a two-period rule whose multiplier threshold has schema `M`. */
export type TwoPeriodParametersSchema<M extends TSchema> = ReturnType<typeof twoPeriodParametersSchema<M>>;

/** What sets a two-period rule apart (see {@link defineTwoPeriodRule}). */
export interface TwoPeriodRuleSpec<M extends TSchema> {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly descriptionTemplate: string;
  /** Description of period 2; by default "The reference period, ending at this transaction; must start before period 1." */
  readonly period2Description?: string;
  /** The schema of `multiplierThreshold`. */
  readonly multiplierThreshold: M;
  /** Title and description of the optional period-1 value range (`valueThresholdPeriod1`). */
  readonly valueThresholdPeriod1: { readonly title: string; readonly description: string };
  readonly defaultParameters: Static<TwoPeriodParametersSchema<M>>;
  readonly checksFor: readonly string[];
  readonly types: readonly string[];
  readonly typologies: readonly string[];
  /** Whether the statistic reads volumes: the rule then plans sums and amount counts besides counts. */
  readonly readsVolumes: boolean;
  /** The multiplier, a percentage, of these parameters. */
  percentOf(parameters: Static<TwoPeriodParametersSchema<M>>): number;
  /** What the rule compares for these parameters at the transaction's time `at`. */
  comparisonOf(parameters: Static<TwoPeriodParametersSchema<M>>, money: MoneyContext, at: number): TwoPeriodComparison;
}

/**
 * Declares a two-period rule: it hits a side (`checkSender` / `checkReceiver`) when its statistic
 * of period 1 is at least `percentOf(parameters)` % of that of period 2 ({@link checkTwoPeriods}).
 * Every two-period rule flags fraud (`FLAG` / `FRAUD`), reads the user series its side checks
 * choose, and reads no entry values.
 */
export function defineTwoPeriodRule<M extends TSchema>(spec: TwoPeriodRuleSpec<M>): RuleDefinition<Static<TwoPeriodParametersSchema<M>>> {
  const names = createTwoPeriodNames(needNamePrefix(spec.id));
  // The parameters every two-period schema has (TypeScript cannot see them through a generic `M`).
  const shared = (parameters: Static<TwoPeriodParametersSchema<M>>) => parameters as unknown as TwoPeriodParameters;
  const parametersSchema = twoPeriodParametersSchema({
    id: spec.id,
    period2Description: spec.period2Description ?? 'The reference period, ending at this transaction; must start before period 1.',
    multiplierThreshold: spec.multiplierThreshold,
    valueThresholdPeriod1: spec.valueThresholdPeriod1,
  });
  return defineRule<TwoPeriodParametersSchema<M>>({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema,
    defaultParameters: spec.defaultParameters,
    defaultAction: 'FLAG',
    defaultNature: 'FRAUD',
    checksFor: spec.checksFor,
    types: spec.types,
    typologies: spec.typologies,
    series: USER_SERIES,
    seriesFor: (parameters) => sideSeries(shared(parameters).checkSender, shared(parameters).checkReceiver),
    readsEntryValues: false,
    aggregates: ({ transaction, parameters }) => planTwoPeriods(transaction, shared(parameters), names, spec.readsVolumes),
    check: ({ transaction, parameters, aggregates, money }) =>
      checkTwoPeriods(
        transaction,
        shared(parameters),
        aggregates,
        names,
        spec.percentOf(parameters),
        spec.comparisonOf(parameters, money, transaction.timestamp),
      ),
  });
}

/**
 * The default parameters of the average comparisons: the last day against
 * the last two, once period 2 holds 5 transactions, the sender's sent and the receiver's received
 * transactions; `multiplierThreshold` is the rule's.
 */
export function averageComparisonDefaults<M>(multiplierThreshold: M) {
  return {
    period1: { units: 1, granularity: 'day', rollingBasis: true },
    period2: { units: 2, granularity: 'day', rollingBasis: true },
    transactionsNumberThreshold2: { min: 5 },
    multiplierThreshold,
    checkSender: 'sending',
    checkReceiver: 'receiving',
  } as const;
}

/** The schema of a money multiplier threshold (see {@link moneyMultiplierSchema}). */
export type MoneyMultiplierSchema = ReturnType<typeof moneyMultiplierSchema>;

/** What sets a volume two-period rule apart (see {@link defineVolumeTwoPeriodRule}). */
export interface VolumeTwoPeriodRuleSpec
  extends Omit<TwoPeriodRuleSpec<MoneyMultiplierSchema>, 'multiplierThreshold' | 'readsVolumes' | 'percentOf' | 'comparisonOf'> {
  /** Description of `multiplierThreshold` (a `{ currency, value }` percentage). */
  readonly multiplierDescription: string;
  /** The statistic of a period's volume the rule compares. */
  readonly statistic: VolumeStatistic;
}

/**
 * Declares a two-period rule comparing a statistic of the volume (R-27 the volume, R-120 the
 * average amount, R-122 the daily volume) with a `{ currency, value }` multiplier: see
 * {@link createVolumeComparison}.
 */
export function defineVolumeTwoPeriodRule(spec: VolumeTwoPeriodRuleSpec): RuleDefinition<Static<TwoPeriodParametersSchema<MoneyMultiplierSchema>>> {
  const { multiplierDescription, statistic, ...rest } = spec;
  return defineTwoPeriodRule({
    ...rest,
    multiplierThreshold: moneyMultiplierSchema(multiplierDescription),
    readsVolumes: true,
    percentOf: (parameters) => parameters.multiplierThreshold.value,
    comparisonOf: (parameters, money, at) => createVolumeComparison(parameters, money, at, statistic),
  });
}
