import { Type, type Static } from '@sinclair/typebox';
import { TimeWindowSchema, describeTimeWindow, windowStart, type TimeWindow } from '../../aggregation/time-window.js';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { formatMoney, MONEY_SCALE, toScaled } from '../../domain/money.js';
import type { Transaction } from '../../domain/index.js';
import { createSideNames, planSides, receiverReads, senderReads, sumAmounts, sumCounts, type SideNames } from '../directions.js';
import { CheckReceiverSchema, CheckSenderSchema, resolveThreshold, type CheckReceiver, type CheckSender } from '../parameters.js';
import type { AggregateNeed, MoneyContext, RuleDefinition, RuleHit } from '../types.js';
import {
  periodSchema,
  countRangeSchema,
  valueRangeSchema,
  moneyMultiplierSchema,
  ExcludePeriod1Schema,
  type TwoPeriodParameters,
  type PeriodStats,
  type Ratio,
  type TwoPeriodNames,
  createTwoPeriodNames,
  measurePeriodLengthMs,
  planTwoPeriods,
  readTwoPeriods,
  isCountInRange,
  isRatioInRange,
  isAtLeastPercentOf,
  formatPercent,
  convertFromBase,
  formatInCurrency,
  perDay,
  describeSide,
} from '../two-periods.js';

// ---------------------------------------------------------------------------------------------
//
// ---------------------------------------------------------------------------------------------

const ParametersSchema = Type.Object(
  {
    period1: periodSchema('Period 1', 'The recent period, ending at (and including) this transaction.'),
    period2: periodSchema('Period 2', 'The reference period, ending at this transaction; should be longer than period 1.'),
    multiplierThreshold: moneyMultiplierSchema(
      'The rule hits when the volume of period 1 is at or above this percentage of the volume of period 2 (500 = five times).',
    ),
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
    excludePeriod1: Type.Optional(ExcludePeriod1Schema),
    transactionsNumberThreshold: Type.Optional(
      countRangeSchema('Transactions number (period 1)', 'No hit when the number of transactions in period 1 (this one included) is outside this range.'),
    ),
    transactionsNumberThreshold2: Type.Optional(
      countRangeSchema('Transactions number (period 2)', 'No hit when the number of transactions in period 2 is outside this range.'),
    ),
    valueThresholdPeriod1: Type.Optional(
      valueRangeSchema(
        'Volume range (period 1)',
        'No hit when the volume of period 1, in the multiplier currency (rounded to its minor unit), is outside this range.',
      ),
    ),
  },
  { additionalProperties: false, title: 'R-27 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NAMES = createTwoPeriodNames('r27');

/**
 * R-27 Total transaction volume exceed past period total transaction volume: the user's volume
 * in period 1 (including this transaction) is at least `multiplierThreshold.value` % of the volume
 * in period 2 (≥, per DOMAIN.md; compared exactly on base-currency sums). Guards: counts of both
 * periods and the period-1 volume must lie in their optional ranges. No hit when period 2's volume
 * is zero (an "infinite" spike is not decidable), when period 2 does not start before period 1, or
 * when period 2 holds no transaction before period 1 (no history). Without `excludePeriod1` period 2
 * contains period 1, so only multipliers up to 100 % can hit. Targets sudden volume spikes
 * (account takeover, mule activation).
 */
export const r27TotalVolumeExceedsPastPeriod: RuleDefinition<Parameters> = {
  id: 'R-27',
  name: 'Total transaction volume exceed past period total transaction volume',
  description: "A user's transaction volume in a recent period is at or above a multiple of the volume in a past reference period.",
  descriptionTemplate: '{{side}} volume in {{period1}} ({{volume1}}) is {{ratio}} of the volume in {{period2}} ({{volume2}}), at or above {{multiplier}}%.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    period1: { units: 7, granularity: 'day', rollingBasis: true },
    period2: { units: 30, granularity: 'day', rollingBasis: true },
    multiplierThreshold: { currency: 'USD', value: 500 },
    checkSender: 'sending',
    checkReceiver: 'receiving',
    // Recommended by the reference implementation; without it a sum of period 1 can never exceed
    // 100 % of a period 2 that contains it, so the default 500 % could never hit.
    excludePeriod1: true,
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction volume'],
  types: ['Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  series: ['user-sending', 'user-receiving', 'user-all'],
  aggregates({ transaction, parameters }) {
    return planTwoPeriods(transaction, parameters, NAMES, true);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const hits: RuleHit[] = [];
    const { currency, value: percent } = parameters.multiplierThreshold;
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const periods = readTwoPeriods(transaction, parameters, aggregates, NAMES, direction);
      if (!periods) continue;
      const { period1, period2 } = periods;
      if (!isCountInRange(period1.count, parameters.transactionsNumberThreshold)) continue;
      if (!isCountInRange(period2.count, parameters.transactionsNumberThreshold2)) continue;
      if (period2.sum <= 0n) continue;
      if (parameters.valueThresholdPeriod1) {
        const converted = convertFromBase(period1.sum, currency, money, transaction.timestamp);
        if (converted === null || !isRatioInRange({ num: converted, den: 1n }, parameters.valueThresholdPeriod1)) continue;
      }
      const stat1 = { num: period1.sum, den: 1n };
      const stat2 = { num: period2.sum, den: 1n };
      if (!isAtLeastPercentOf(stat1, stat2, percent)) continue;
      hits.push({
        direction,
        vars: {
          side: describeSide(direction),
          period1: describeTimeWindow(parameters.period1),
          period2: describeTimeWindow(parameters.period2),
          volume1: formatInCurrency(period1.sum, currency, money, transaction.timestamp),
          volume2: formatInCurrency(period2.sum, currency, money, transaction.timestamp),
          ratio: formatPercent(stat1, stat2),
          multiplier: percent,
        },
      });
    }
    return hits;
  },
};
