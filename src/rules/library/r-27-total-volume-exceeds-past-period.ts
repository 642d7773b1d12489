import { defineVolumeTwoPeriodRule } from '../kits/two-periods.js';

/**
 * R-27 Total transaction volume exceed past period total transaction volume: the user's volume in
 * period 1 (including this transaction) is at least `multiplierThreshold.value` % of the volume in
 * period 2 (≥, per docs/wire-format.md#rule-library; compared exactly on base-currency sums).
 * Guards: counts of both periods and the period-1 volume must lie in their optional ranges. No hit
 * when period 2's volume is zero (an "infinite" spike is not decidable), when period 2 does not
 * start before period 1, or when period 2 holds no transaction before period 1 (no history).
 * Without `excludePeriod1` period 2 contains period 1, so only multipliers up to 100 % can hit.
 * Targets sudden volume spikes (account takeover, mule activation).
 */
export const r27TotalVolumeExceedsPastPeriod = defineVolumeTwoPeriodRule({
  id: 'R-27',
  name: 'Total transaction volume exceed past period total transaction volume',
  description: "A user's transaction volume in a recent period is at or above a multiple of the volume in a past reference period.",
  descriptionTemplate: '{{side}} volume in {{period1}} ({{volume1}}) is {{ratio}} of the volume in {{period2}} ({{volume2}}), at or above {{multiplier}}%.',
  period2Description: 'The reference period, ending at this transaction; should be longer than period 1.',
  multiplierDescription: 'The rule hits when the volume of period 1 is at or above this percentage of the volume of period 2 (500 = five times).',
  valueThresholdPeriod1: {
    title: 'Volume range (period 1)',
    description: 'No hit when the volume of period 1, in the multiplier currency (rounded to its minor unit), is outside this range.',
  },
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
  checksFor: ['Transaction volume'],
  types: ['Volume comparison'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  statistic: {
    vars: ['volume1', 'volume2'],
    isComparable: (_, period2) => period2.sum > 0n,
    toStat: (volume) => ({ num: volume, den: 1n }),
  },
});
