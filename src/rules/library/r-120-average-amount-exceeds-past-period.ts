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
      'The rule hits when the average amount of period 1 is at or above this percentage of the average amount of period 2 (200 = twice).',
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
        'Average amount range (period 1)',
        'No hit when the average amount of period 1, in the multiplier currency (volume rounded to its minor unit, then divided), is outside this range.',
      ),
    ),
  },
  { additionalProperties: false, title: 'R-120 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NAMES = createTwoPeriodNames('r120');

/**
 * R-120 Average transaction amount exceed past period average: the user's average transaction
 * amount in period 1 (including this transaction) is at least `multiplierThreshold.value` % of
 * the average in period 2 (≥, per DOMAIN.md). Averages are volume ÷ number of transactions with
 * an amount, compared exactly: sum1 × n2 × 100 ≥ m × sum2 × n1. Guards as R-27; no hit when
 * period 2's average is zero, when period 2 does not start before period 1 or holds no
 * transaction before it. Targets sudden changes in ticket size (account takeover, card fraud).
 */
export const r120AverageAmountExceedsPastPeriod: RuleDefinition<Parameters> = {
  id: 'R-120',
  name: 'Average transaction amount exceed past period average',
  description: "A user's average transaction amount in a recent period is at or above a multiple of the average in a past reference period.",
  descriptionTemplate: '{{side}} average amount in {{period1}} ({{average1}}) is {{ratio}} of the average in {{period2}} ({{average2}}), at or above {{multiplier}}%.',
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
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection', 'Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Card fraud'],
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
      if (period1.amountCount <= 0 || period2.amountCount <= 0 || period2.sum <= 0n) continue;
      const n1 = BigInt(period1.amountCount);
      const n2 = BigInt(period2.amountCount);
      if (parameters.valueThresholdPeriod1) {
        const converted = convertFromBase(period1.sum, currency, money, at);
        if (converted === null || !isRatioInRange({ num: converted, den: n1 }, parameters.valueThresholdPeriod1)) continue;
      }
      const stat1 = { num: period1.sum, den: n1 };
      const stat2 = { num: period2.sum, den: n2 };
      if (!isAtLeastPercentOf(stat1, stat2, percent)) continue;
      hits.push({
        direction,
        vars: {
          side: describeSide(direction),
          period1: describeTimeWindow(parameters.period1),
          period2: describeTimeWindow(parameters.period2),
          average1: formatInCurrency(period1.sum / n1, currency, money, at),
          average2: formatInCurrency(period2.sum / n2, currency, money, at),
          ratio: formatPercent(stat1, stat2),
          multiplier: percent,
        },
      });
    }
    return hits;
  },
};
