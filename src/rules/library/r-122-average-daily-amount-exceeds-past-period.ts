import { averageComparisonDefaults, defineVolumeTwoPeriodRule, perDay } from '../kits/two-periods.js';

/**
 * R-122 Average daily transaction amount exceed past period average: the user's volume per day in
 * period 1 (including this transaction) is at least `multiplierThreshold.value` % of the volume per
 * day in period 2 (≥, per docs/wire-format.md#rule-library). A period's days are its length: the
 * nominal units × unit for fixed-length rolling windows (7 days = 7), else the elapsed time
 * end − start in ms / 86 400 000 (a calendar day at 18:00 UTC has lasted 0.75 days; a rolling
 * month its calendar length); with `excludePeriod1`, period 2 lasts its length minus period 1's.
 * Compared exactly: sum1 × len2 × 100 ≥ m × sum2 × len1. Guards as R-27; no hit when period 1 has
 * length 0 (a calendar window at exactly 00:00 UTC), when period 2's volume is zero, when period 2
 * does not start before period 1 or holds no transaction before it. Targets sudden volume surges.
 */
export const r122AverageDailyAmountExceedsPastPeriod = defineVolumeTwoPeriodRule({
  id: 'R-122',
  name: 'Average daily transaction amount exceed past period average',
  description: "A user's average daily transaction volume in a recent period is at or above a multiple of the daily average in a past reference period.",
  descriptionTemplate:
    '{{side}} daily volume in {{period1}} ({{average1}} per day) is {{ratio}} of the daily volume in {{period2}} ({{average2}} per day), at or above {{multiplier}}%.',
  multiplierDescription:
    'The rule hits when the average daily volume of period 1 is at or above this percentage of the average daily volume of period 2 (200 = twice).',
  valueThresholdPeriod1: {
    title: 'Average daily volume range (period 1)',
    description:
      'No hit when the average daily volume of period 1, in the multiplier currency (volume rounded to its minor unit, then divided by the days of period 1), is outside this range.',
  },
  defaultParameters: averageComparisonDefaults({ currency: 'USD', value: 200 }),
  checksFor: ['Transaction volume'],
  types: ['Anomaly detection', 'Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  statistic: {
    vars: ['average1', 'average2'],
    isComparable: (period1, period2) => period1.lengthMs > 0n && period2.lengthMs > 0n && period2.sum > 0n,
    toStat: (volume, period) => perDay(volume, period.lengthMs),
  },
});
