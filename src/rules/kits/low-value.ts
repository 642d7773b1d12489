/**
 * The low-value rules (R-7 received, R-8 sent): a user's last N transactions of one direction,
 * this one included, are all within a low-value range — structuring ("smurfing") just under a
 * reporting threshold.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { currencyExponent } from '../../domain/codes.js';
import type { Transaction } from '../../domain/index.js';
import { convertScaled, formatMoney, roundToMinorUnit, toScaled } from '../../domain/money.js';
import { noteNoRate } from '../../domain/not-evaluated.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import type { EvidenceWindow, RuleEvidence } from '../../domain/schemas/results.js';
import { amountEvidence, evidenceWindow } from './evidence.js';
import { createNeed } from './need.js';
import { contributionsOf, type SeriesName } from '../series.js';
import type { AggregateNeed, MoneyContext, RuleDefinition, RuleHit } from '../types.js';

/** Largest accepted `lowTransactionCount`: the look-back costs O(log n) per query, but stays bounded. */
const MAX_LOW_TRANSACTION_COUNT = 1000;

const AmountBoundsSchema = Type.Object(
  {
    min: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1e15,
        title: 'Minimum',
        description: 'Smallest amount in the range (inclusive). Absent: no lower bound.',
      }),
    ),
    max: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1e15,
        title: 'Maximum',
        description: 'Largest amount in the range (inclusive). Absent: no upper bound. A maximum below the minimum never matches.',
      }),
    ),
  },
  { additionalProperties: false, title: 'Amount range', description: 'Inclusive bounds of an amount in one currency.' },
);

const ParametersSchema = Type.Object(
  {
    lowTransactionValues: Type.Record(Type.String(), AmountBoundsSchema, {
      title: 'Low-value range',
      description:
        "The low-value range by currency (ISO 4217 code → {min, max}). Amounts are judged in the engine's base currency when it is listed, else converted into the first listed currency and rounded to its minor unit (as amount thresholds are).",
      propertyNames: { format: 'currency-code' },
      minProperties: 1,
      maxProperties: 200,
    }),
    lowTransactionCount: Type.Integer({
      minimum: 1,
      maximum: MAX_LOW_TRANSACTION_COUNT,
      title: 'Low-value transactions',
      description: "The rule hits when the user's last this-many transactions of the direction, this one included, are all in the low-value range.",
    }),
    timeWindow: Type.Optional(
      Type.Object(TimeWindowSchema.properties, {
        additionalProperties: false,
        title: 'Time window',
        description:
          'When set, the last `lowTransactionCount` transactions must all lie within this window, ending at (and including) this transaction: a run spread over a longer time (monthly salaries just under the limit) does not hit. Absent: the whole retained history, as before.',
      }),
    ),
  },
  { additionalProperties: false, title: 'Low-value transactions parameters' },
);
/** The parameters of. */
export type LowValueParameters = Static<typeof ParametersSchema>;
type AmountRange = LowValueParameters['lowTransactionValues'];

/** What sets apart besides their side. */
export type LowValueRuleSpec = Pick<RuleDefinition<LowValueParameters>, 'id' | 'name' | 'description' | 'descriptionTemplate'>;

/**
 * A low-value range put into one currency: `judge` maps a base-currency amount into that currency
 * (R-69's conversion: identity when the base currency is listed, else converted into the first
 * listed currency and rounded to its minor unit), `min`/`max` are the bounds there.
 */
interface ResolvedRange {
  readonly currency: string;
  readonly min: bigint | undefined;
  readonly max: bigint | undefined;
  readonly judge: (amount: bigint) => bigint | null;
}

function resolveRange(range: AmountRange, money: MoneyContext, at: number): ResolvedRange | null {
  const base = money.baseCurrency;
  const own = range[base];
  const currency = own !== undefined ? base : Object.keys(range)[0];
  if (currency === undefined) return null;
  const bounds = own ?? (range[currency] as Static<typeof AmountBoundsSchema>);
  const exponent = currencyExponent(currency);
  const judge =
    currency === base
      ? (amount: bigint) => amount
      : (amount: bigint) => {
          const converted = convertScaled(amount, base, currency, money.rates, at);
          if (converted === null) {
            noteNoRate(base, currency);
            return null;
          }
          return roundToMinorUnit(converted, exponent);
        };
  return {
    currency,
    min: bounds.min === undefined ? undefined : toScaled(bounds.min),
    max: bounds.max === undefined ? undefined : toScaled(bounds.max),
    judge,
  };
}

/** Whether a base-currency amount lies in the resolved range (a missing amount or rate never does). */
function isInRange(amount: AggregateValue | undefined, range: ResolvedRange): boolean {
  if (typeof amount !== 'bigint') return false;
  const judged = range.judge(amount);
  if (judged === null) return false;
  return (range.min === undefined || judged >= range.min) && (range.max === undefined || judged <= range.max);
}

function describeRange(range: ResolvedRange): string {
  const { min, max, currency } = range;
  if (min !== undefined && max !== undefined) return `${formatMoney(min, currency)} to ${formatMoney(max, currency)}`;
  if (min !== undefined) return `at least ${formatMoney(min, currency)}`;
  if (max !== undefined) return `at most ${formatMoney(max, currency)}`;
  return 'any amount';
}

/**
 * The evidence of a low-value hit, from the reads the rule already makes (the last N − 1 entries'
 * count, smallest and largest amount; no ids: listing them would be one more read per evaluation):
 * `{ kind: 'lowValueCount', value: N, comparison: '>=', limit: lowTransactionCount, window? }` (the
 * last N transactions, this one included, all in range; `window` with a `timeWindow`), then the
 * smallest of their amounts `>=` the range's `min` and the largest `<=` its `max` (kinds
 * `lowValueMin`, `lowValueMax`; each bound only when set), in the range's currency, `convertedFrom`
 * the base-currency amount when converted.
 */
function lowValueEvidence(
  direction: 'ORIGIN' | 'DESTINATION',
  count: number,
  range: ResolvedRange,
  baseCurrency: string,
  smallest: bigint,
  largest: bigint,
  window: EvidenceWindow | undefined,
): RuleEvidence[] {
  const countItem: Record<string, unknown> = { direction, kind: 'lowValueCount', value: count, comparison: '>=', limit: count };
  if (window !== undefined) countItem.window = window;
  const evidence: RuleEvidence[] = [countItem as RuleEvidence];
  const bound = (kind: string, amount: bigint, limit: bigint, comparison: '>=' | '<=') => {
    const judged = range.judge(amount) as bigint;
    evidence.push(
      amountEvidence(direction, kind, { amount: judged, threshold: limit, currency: range.currency }, comparison, { amount, currency: baseCurrency }),
    );
  };
  if (range.min !== undefined) bound('lowValueMin', smallest, range.min, '>=');
  if (range.max !== undefined) bound('lowValueMax', largest, range.max, '<=');
  return evidence;
}

interface SideSpec {
  readonly series: Extract<SeriesName, 'user-sending' | 'user-receiving'>;
  /** `series` as the set {@link contributionsOf} takes, built once. */
  readonly seriesSet: ReadonlySet<SeriesName>;
  readonly direction: 'ORIGIN' | 'DESTINATION';
  readonly userOf: (transaction: Transaction) => string | undefined;
}

const RECEIVING: SideSpec = { series: 'user-receiving', seriesSet: new Set(['user-receiving']), direction: 'DESTINATION', userOf: (t) => t.destinationUserId };
const SENDING: SideSpec = { series: 'user-sending', seriesSet: new Set(['user-sending']), direction: 'ORIGIN', userOf: (t) => t.originUserId };

/** The current transaction's own entry amount in the side's series (base currency, as stored). */
function readCurrentAmount(transaction: Transaction, side: SideSpec, money: MoneyContext): bigint | null {
  // Only the amount is read: no values computed.
  for (const entry of contributionsOf(transaction, side.seriesSet, money, undefined, false)) {
    if (entry.series === side.series) return entry.amount;
  }
  return null;
}

/**
 * Declares R-7 (`DESTINATION`: received transactions) or R-8 (`ORIGIN`: sent ones): the user's
 * last `lowTransactionCount` transactions of that direction, this one included, are all in the
 * low-value range and, with the optional `timeWindow`, all lie within that window. The earlier
 * `lowTransactionCount − 1` come from three "last N" aggregates over the window, or the whole
 * retained history without one (`lastAmountCount`, `lastMin`, `lastMax`):
 * they are all low-value exactly when all N − 1 exist and have an amount and both the smallest and
 * the largest is in range — the conversion into the range currency is monotonic, so the extremes
 * decide for every amount in between.
 */
export function defineLowValueRule(direction: 'ORIGIN' | 'DESTINATION', meta: LowValueRuleSpec): RuleDefinition<LowValueParameters> {
  const side = direction === 'ORIGIN' ? SENDING : RECEIVING;
  const names = { count: `${meta.id}:lastAmountCount`, min: `${meta.id}:lastMin`, max: `${meta.id}:lastMax` } as const;
  return defineRule({
    ...meta,
    parametersSchema: ParametersSchema,
    defaultParameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 3 },
    defaultAction: 'FLAG',
    defaultNature: 'AML',
    checksFor: ['Transaction amount', 'No. of transactions'],
    types: ['Pattern recognition'],
    typologies: ['Structuring'],
    series: [side.series],
    readsEntryValues: false,
    aggregates({ transaction, parameters }): AggregateNeed[] {
      const key = side.userOf(transaction);
      const limit = parameters.lowTransactionCount - 1;
      if (!key || limit < 1) return [];
      const at = transaction.timestamp;
      // Inside a window the last N − 1 entries are the user's last N − 1 exactly when none of
      // those lies before its start; otherwise the window holds fewer and the count check fails.
      const start = parameters.timeWindow === undefined ? Number.NEGATIVE_INFINITY : windowStart(at, parameters.timeWindow);
      const id = transaction.transactionId;
      const extras = { limit };
      // The last-N functions cannot merge the current transaction: the check judges it itself.
      return [
        createNeed(names.count, side.series, key, start, at, 'lastAmountCount', id, false, extras),
        createNeed(names.min, side.series, key, start, at, 'lastMin', id, false, extras),
        createNeed(names.max, side.series, key, start, at, 'lastMax', id, false, extras),
      ];
    },
    check({ transaction, parameters, aggregates, money, currentCounts }): RuleHit[] {
      // The pattern is "the last N transactions, this one included": a current transaction the
      // instance's historical filters leave out is not one of them, just as its history excludes
      // such transactions.
      if (!side.userOf(transaction) || currentCounts === false) return [];
      const range = resolveRange(parameters.lowTransactionValues, money, transaction.timestamp);
      const current = range === null ? null : readCurrentAmount(transaction, side, money);
      if (range === null || current === null || !isInRange(current, range)) return [];
      let smallest = current;
      let largest = current;
      const limit = parameters.lowTransactionCount - 1;
      if (limit >= 1) {
        if (aggregates[names.count] !== limit) return [];
        const min = aggregates[names.min];
        const max = aggregates[names.max];
        if (!isInRange(min, range) || !isInRange(max, range)) return [];
        if ((min as bigint) < smallest) smallest = min as bigint;
        if ((max as bigint) > largest) largest = max as bigint;
      }
      const within = parameters.timeWindow === undefined ? '' : ` within ${describeTimeWindow(parameters.timeWindow)}`;
      const window =
        parameters.timeWindow === undefined
          ? undefined
          : evidenceWindow(windowStart(transaction.timestamp, parameters.timeWindow), transaction.timestamp, parameters.timeWindow);
      const evidence = lowValueEvidence(side.direction, parameters.lowTransactionCount, range, money.baseCurrency, smallest, largest, window);
      return [{ direction: side.direction, vars: { count: parameters.lowTransactionCount, range: describeRange(range), within }, evidence }];
    },
  });
}
