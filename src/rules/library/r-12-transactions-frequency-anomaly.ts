import { Type, type Static } from '@sinclair/typebox';
import {
  ANOMALY_BASELINE_DAYS,
  ANOMALY_MIN_BASELINE_DAYS,
  ANOMALY_RECENT_DAYS,
  collectDailyValues,
  computeAnomalyDays,
  createDayNames,
  evaluateStdDevSpike,
  formatRational,
  formatStdDev,
  toRational,
  planDayNeeds,
  readCount,
  type Rational,
} from '../anomaly.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    title: 'R-12 parameters',
    description: 'None: the periods (30 recent days, 90 baseline days before them) and the 2 standard deviations are fixed.',
  },
);
type Parameters = Static<typeof ParametersSchema>;

const RECENT = 'r12:recent';
const BASELINE = createDayNames('r12:b', ANOMALY_BASELINE_DAYS);

/**
 * R-12 Transactions frequency anomaly: the sender's mean number of sent transactions per day
 * over the recent period is above the baseline's mean daily count plus 2 standard deviations of
 * those daily counts — a jump in how often an account sends (account takeover, mule activation,
 * card testing bursts).
 *
 * Exactly as R-11 (see `src/rules/anomaly.ts`), with a day's value the number of the sender's
 * `user-sending` transactions that day: UTC calendar days; recent period = the 30 days ending
 * with this transaction's day (this transaction included); baseline = the 90 days before it,
 * counted from the first day with a transaction on (quiet days after it as 0); every recent day
 * counts. No hit with fewer than 10 baseline days with a transaction. Hits ORIGIN only.
 *
 * Cost: 91 `count` needs per transaction with a sender, each O(log n); 120 days of history.
 */
export const r12TransactionsFrequencyAnomaly: RuleDefinition<Parameters> = {
  id: 'R-12',
  name: 'Transactions frequency anomaly',
  description: "A user's average number of transactions sent per day over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    'Sender made {{recentMean}} transactions per day over the last {{recentDays}} days, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.',
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['No. of transactions'],
  types: ['Anomaly detection', 'Velocity'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  series: ['user-sending'],
  aggregates({ transaction }) {
    if (!transaction.originUserId) return [];
    const days = computeAnomalyDays(transaction.timestamp);
    const needs: AggregateNeed[] = [];
    planDayNeeds(transaction, [RECENT], [days.recent], 'count', needs);
    return planDayNeeds(transaction, BASELINE, days.baselineDays, 'count', needs);
  },
  check({ transaction, aggregates }): RuleHit[] {
    if (!transaction.originUserId) return [];
    const daily: (Rational | null)[] = [];
    for (let i = ANOMALY_BASELINE_DAYS - 1; i >= 0; i--) {
      const count = readCount(aggregates, BASELINE[i] as string);
      daily.push(count > 0n ? toRational(count) : null);
    }
    const baseline = collectDailyValues(daily, true);
    if (baseline.activeDays < ANOMALY_MIN_BASELINE_DAYS) return [];
    const spike = evaluateStdDevSpike({ baseline: baseline.values, recentSum: toRational(readCount(aggregates, RECENT)), recentDays: ANOMALY_RECENT_DAYS });
    if (!spike?.hit) return [];
    return [
      {
        direction: 'ORIGIN',
        vars: {
          recentDays: ANOMALY_RECENT_DAYS,
          baselineDays: ANOMALY_BASELINE_DAYS,
          recentMean: formatRational(spike.recentMean, 2),
          baselineMean: formatRational(spike.baselineMean, 2),
          stdDev: formatStdDev(spike.variance, 2),
        },
      },
    ];
  },
};
