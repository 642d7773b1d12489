import type { Static } from '@sinclair/typebox';
import type { RuleDefinition, RuleHit } from '../types.js';
import {
  checkTwoPeriods,
  createTwoPeriodNames,
  createVolumeComparison,
  moneyMultiplierSchema,
  planTwoPeriods,
  twoPeriodParametersSchema,
} from '../two-periods.js';
import { sideSeries } from '../directions.js';

const ParametersSchema = twoPeriodParametersSchema({
  id: 'R-120',
  period2Description: 'The reference period, ending at this transaction; must start before period 1.',
  multiplierThreshold: moneyMultiplierSchema(
    'The rule hits when the average amount of period 1 is at or above this percentage of the average amount of period 2 (200 = twice).',
  ),
  valueThresholdPeriod1: {
    title: 'Average amount range (period 1)',
    description:
      'No hit when the average amount of period 1, in the multiplier currency (volume rounded to its minor unit, then divided), is outside this range.',
  },
});
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
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    return planTwoPeriods(transaction, parameters, NAMES, true);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const comparison = createVolumeComparison(parameters, money, transaction.timestamp, {
      vars: ['average1', 'average2'],
      isComparable: (period1, period2) => period1.amountCount > 0 && period2.amountCount > 0 && period2.sum > 0n,
      toStat: (volume, period) => ({ num: volume, den: BigInt(period.amountCount) }),
    });
    return checkTwoPeriods(transaction, parameters, aggregates, NAMES, parameters.multiplierThreshold.value, comparison);
  },
};
