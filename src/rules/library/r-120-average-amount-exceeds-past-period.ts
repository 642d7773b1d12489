import { averageComparisonDefaults, defineVolumeTwoPeriodRule } from '../kits/two-periods.js';

/**
 * R-120 Average transaction amount exceed past period average: the user's average transaction
 * amount in period 1 (including this transaction) is at least `multiplierThreshold.value` % of the
 * average in period 2 (≥, per docs/wire-format.md#rule-library). Averages are volume ÷ number of
 * transactions with an amount, compared exactly: sum1 × n2 × 100 ≥ m × sum2 × n1. Guards as R-27;
 * no hit when period 2's average is zero, when period 2 does not start before period 1 or holds no
 * transaction before it. Targets sudden changes in ticket size (account takeover, card fraud).
 */
export const r120AverageAmountExceedsPastPeriod = defineVolumeTwoPeriodRule({
  id: 'R-120',
  name: 'Average transaction amount exceed past period average',
  description: "A user's average transaction amount in a recent period is at or above a multiple of the average in a past reference period.",
  descriptionTemplate:
    '{{side}} average amount in {{period1}} ({{average1}}) is {{ratio}} of the average in {{period2}} ({{average2}}), at or above {{multiplier}}%.',
  multiplierDescription: 'The rule hits when the average amount of period 1 is at or above this percentage of the average amount of period 2 (200 = twice).',
  valueThresholdPeriod1: {
    title: 'Average amount range (period 1)',
    description:
      'No hit when the average amount of period 1, in the multiplier currency (volume rounded to its minor unit, then divided), is outside this range.',
  },
  defaultParameters: averageComparisonDefaults({ currency: 'USD', value: 200 }),
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection', 'Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Card fraud'],
  statistic: {
    vars: ['average1', 'average2'],
    isComparable: (period1, period2) => period1.amountCount > 0 && period2.amountCount > 0 && period2.sum > 0n,
    toStat: (volume, period) => ({ num: volume, den: BigInt(period.amountCount) }),
  },
});
