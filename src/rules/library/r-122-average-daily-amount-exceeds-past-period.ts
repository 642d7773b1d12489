import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow } from '../../aggregation/time-window.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { RuleDefinition, RuleHit } from '../types.js';
import {
  convertFromBase,
  countRangeSchema,
  createTwoPeriodNames,
  describeSide,
  ExcludePeriod1Schema,
  formatInCurrency,
  formatPercent,
  isAtLeastPercentOf,
  isCountInRange,
  isRatioInRange,
  moneyMultiplierSchema,
  perDay,
  periodSchema,
  planTwoPeriods,
  readTwoPeriods,
  valueRangeSchema,
} from '../two-periods.js';

const ParametersSchema = Type.Object(
  {
    period1: periodSchema('Period 1', 'The recent period, ending at (and including) this transaction.'),
    period2: periodSchema('Period 2', 'The reference period, ending at this transaction; must start before period 1.'),
    multiplierThreshold: moneyMultiplierSchema(
      'The rule hits when the average daily volume of period 1 is at or above this percentage of the average daily volume of period 2 (200 = twice).',
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
        'Average daily volume range (period 1)',
        'No hit when the average daily volume of period 1, in the multiplier currency (volume rounded to its minor unit, then divided by the days of period 1), is outside this range.',
      ),
    ),
  },
  { additionalProperties: false, title: 'R-122 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NAMES = createTwoPeriodNames('r122');

/**
 * R-122 Average daily transaction amount exceed past period average: the user's volume per day in
 * period 1 (including this transaction) is at least `multiplierThreshold.value` % of the volume per
 * day in period 2 (≥, per DOMAIN.md). A period's days are its length: the nominal units × unit for
 * fixed-length rolling windows (7 days = 7), else the elapsed time end − start in ms / 86 400 000
 * (a calendar day at 18:00 UTC has lasted 0.75 days; a rolling month its calendar length); with
 * `excludePeriod1`, period 2 lasts its length minus period 1's. Compared exactly:
 * sum1 × len2 × 100 ≥ m × sum2 × len1. Guards as R-27; no hit when period 1 has length 0 (a
 * calendar window at exactly 00:00 UTC), when period 2's volume is zero, when period 2 does not
 * start before period 1 or holds no transaction before it. Targets sudden volume surges.
 */
export const r122AverageDailyAmountExceedsPastPeriod: RuleDefinition<Parameters> = {
  id: 'R-122',
  name: 'Average daily transaction amount exceed past period average',
  description: "A user's average daily transaction volume in a recent period is at or above a multiple of the daily average in a past reference period.",
  descriptionTemplate: '{{side}} daily volume in {{period1}} ({{average1}} per day) is {{ratio}} of the daily volume in {{period2}} ({{average2}} per day), at or above {{multiplier}}%.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    period1: { units: 1, granularity: 'day', rollingBasis: true },
    period2: { units: 2, granularity: 'day', rollingBasis: true },
    transactionsNumberThreshold2: { min: 5 },
    multiplierThreshold: { currency: 'USD', value: 200 },
    checkSender: 'sending',
    checkReceiver: 'receiving',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction volume'],
  types: ['Anomaly detection', 'Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  series: ['user-sending', 'user-receiving', 'user-all'],
  aggregates({ transaction, parameters }) {
    return planTwoPeriods(transaction, parameters, NAMES, true);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const hits: RuleHit[] = [];
    const { currency, value: percent } = parameters.multiplierThreshold;
    const at = transaction.timestamp;
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const periods = readTwoPeriods(transaction, parameters, aggregates, NAMES, direction);
      if (!periods) continue;
      const { period1, period2 } = periods;
      if (!isCountInRange(period1.count, parameters.transactionsNumberThreshold)) continue;
      if (!isCountInRange(period2.count, parameters.transactionsNumberThreshold2)) continue;
      if (period1.lengthMs <= 0n || period2.lengthMs <= 0n || period2.sum <= 0n) continue;
      const stat1 = perDay(period1.sum, period1.lengthMs);
      const stat2 = perDay(period2.sum, period2.lengthMs);
      if (parameters.valueThresholdPeriod1) {
        const converted = convertFromBase(period1.sum, currency, money, at);
        if (converted === null || !isRatioInRange(perDay(converted, period1.lengthMs), parameters.valueThresholdPeriod1)) continue;
      }
      if (!isAtLeastPercentOf(stat1, stat2, percent)) continue;
      hits.push({
        direction,
        vars: {
          side: describeSide(direction),
          period1: describeTimeWindow(parameters.period1),
          period2: describeTimeWindow(parameters.period2),
          average1: formatInCurrency(stat1.num / stat1.den, currency, money, at),
          average2: formatInCurrency(stat2.num / stat2.den, currency, money, at),
          ratio: formatPercent(stat1, stat2),
          multiplier: percent,
        },
      });
    }
    return hits;
  },
};
