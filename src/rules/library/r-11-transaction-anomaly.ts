import { Type, type Static } from '@sinclair/typebox';
import {
  ANOMALY_BASELINE_DAYS,
  ANOMALY_MIN_BASELINE_DAYS,
  ANOMALY_RECENT_DAYS,
  collectDailyValues,
  computeAnomalyDays,
  createDayNames,
  evaluateStdDevSpike,
  formatMeanAmount,
  formatStdDevAmount,
  toRational,
  planDayNeeds,
  readSum,
  type Rational,
} from '../anomaly.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    title: 'R-11 parameters',
    description: 'None: the periods (30 recent days, 90 baseline days before them) and the 2 standard deviations are fixed.',
  },
);
type Parameters = Static<typeof ParametersSchema>;

const RECENT = 'r11:recent';
const BASELINE = createDayNames('r11:b', ANOMALY_BASELINE_DAYS);

/**
 * R-11 Transaction anomaly: the sender's mean daily sending volume over the recent period is
 * above the mean daily volume of the baseline plus 2 standard deviations of those daily volumes
 * — a sudden, sustained rise in what an account sends (account takeover, money-mule activation,
 * the "unusual activity compared with the customer's profile" of FATF / FinCEN red flags).
 *
 * Exactly (see `src/rules/anomaly.ts`): UTC calendar days; the recent period is the 30 days
 * ending with this transaction's day (this transaction included, later ones of the day not);
 * the baseline is the 90 days before it. A day's value is the exact sum, in the base currency,
 * of the sender's `user-sending` amounts (amounts without a rate add nothing). Baseline days
 * count from the first day with a positive volume on (earlier days are before the user's
 * history), quiet days after it as 0; every recent day counts, quiet ones as 0. No hit with fewer
 * than 10 baseline days of positive volume. Hits ORIGIN only.
 *
 * Cost: 91 needs per transaction with a sender (one `sum` per baseline day, one over the recent
 * period), each O(log n); 120 days of history must be retained.
 */
export const r11TransactionAnomaly: RuleDefinition<Parameters> = {
  id: 'R-11',
  name: 'Transaction anomaly',
  description: "A user's average daily sending volume over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily volume over the last {{recentDays}} days is {{recentMean}}, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.",
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  series: ['user-sending'],
  aggregates({ transaction }) {
    if (!transaction.originUserId) return [];
    const days = computeAnomalyDays(transaction.timestamp);
    const needs: AggregateNeed[] = [];
    planDayNeeds(transaction, [RECENT], [days.recent], 'sum', needs);
    return planDayNeeds(transaction, BASELINE, days.baselineDays, 'sum', needs);
  },
  check({ transaction, aggregates, money }): RuleHit[] {
    if (!transaction.originUserId) return [];
    const daily: (Rational | null)[] = [];
    // Oldest first.
    for (let i = ANOMALY_BASELINE_DAYS - 1; i >= 0; i--) {
      const sum = readSum(aggregates, BASELINE[i] as string);
      daily.push(sum > 0n ? toRational(sum) : null);
    }
    const baseline = collectDailyValues(daily, true);
    if (baseline.activeDays < ANOMALY_MIN_BASELINE_DAYS) return [];
    const spike = evaluateStdDevSpike({ baseline: baseline.values, recentSum: toRational(readSum(aggregates, RECENT)), recentDays: ANOMALY_RECENT_DAYS });
    if (!spike?.hit) return [];
    const currency = money.baseCurrency;
    return [
      {
        direction: 'ORIGIN',
        vars: {
          recentDays: ANOMALY_RECENT_DAYS,
          baselineDays: ANOMALY_BASELINE_DAYS,
          recentMean: formatMeanAmount(spike.recentMean, currency),
          baselineMean: formatMeanAmount(spike.baselineMean, currency),
          stdDev: formatStdDevAmount(spike.variance, currency),
        },
      },
    ];
  },
};
