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
  planDayNeeds,
  createRatio,
  readCount,
  readSum,
  sumRationals,
  type Rational,
} from '../anomaly.js';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    title: 'R-25 parameters',
    description: 'None: the periods (30 recent days, 90 baseline days before them) and the 2 standard deviations are fixed.',
  },
);
type Parameters = Static<typeof ParametersSchema>;

const RECENT_SUM = createDayNames('r25:rs', ANOMALY_RECENT_DAYS);
const RECENT_COUNT = createDayNames('r25:rc', ANOMALY_RECENT_DAYS);
const BASELINE_SUM = createDayNames('r25:bs', ANOMALY_BASELINE_DAYS);
const BASELINE_COUNT = createDayNames('r25:bc', ANOMALY_BASELINE_DAYS);

/** Daily average amounts (10^-8 units), oldest first; `null` for a day without an amount. */
function dailyAverages(aggregates: Readonly<Record<string, AggregateValue>>, sums: readonly string[], counts: readonly string[]): (Rational | null)[] {
  const out: (Rational | null)[] = [];
  for (let i = sums.length - 1; i >= 0; i--) {
    const count = readCount(aggregates, counts[i] as string);
    out.push(count > 0n ? createRatio(readSum(aggregates, sums[i] as string), count) : null);
  }
  return out;
}

/**
 * R-25 Average transaction value spike: the mean, over the recent period's days, of the sender's
 * daily average sent amount is above the baseline's mean daily average plus 2 standard
 * deviations — the account suddenly sends larger payments than it used to (account takeover,
 * authorised push-payment scams, card fraud cash-out).
 *
 * Exactly (see `src/rules/anomaly.ts`): UTC calendar days; recent period = the 30 days ending
 * with this transaction's day (this transaction included), baseline = the 90 days before it. A
 * day's value is the exact average amount, in the base currency, of the sender's `user-sending`
 * transactions that day that have an amount (sum / amount count, a bigint rational); a day
 * without such a transaction has no value and is left out of both means (an average of nothing is
 * undefined, not 0). No hit with fewer than 10 baseline days with a value, or no recent one.
 * Hits ORIGIN only.
 *
 * Cost: 240 needs per transaction with a sender (a `sum` and an `amountCount` per day over 120
 * days), each O(log n); 120 days of history.
 */
export const r25AverageTransactionValueSpike: RuleDefinition<Parameters> = {
  id: 'R-25',
  name: 'Average transaction value spike',
  description: "A user's average daily transaction amount over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily transaction amount over the last {{recentDays}} days is {{recentMean}}, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.",
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Card fraud'],
  series: ['user-sending'],
  aggregates({ transaction }) {
    if (!transaction.originUserId) return [];
    const days = computeAnomalyDays(transaction.timestamp);
    const needs: AggregateNeed[] = [];
    planDayNeeds(transaction, RECENT_SUM, days.recentDays, 'sum', needs);
    planDayNeeds(transaction, RECENT_COUNT, days.recentDays, 'amountCount', needs);
    planDayNeeds(transaction, BASELINE_SUM, days.baselineDays, 'sum', needs);
    return planDayNeeds(transaction, BASELINE_COUNT, days.baselineDays, 'amountCount', needs);
  },
  check({ transaction, aggregates, money }): RuleHit[] {
    if (!transaction.originUserId) return [];
    const baseline = collectDailyValues(dailyAverages(aggregates, BASELINE_SUM, BASELINE_COUNT), false);
    if (baseline.activeDays < ANOMALY_MIN_BASELINE_DAYS) return [];
    const recent = collectDailyValues(dailyAverages(aggregates, RECENT_SUM, RECENT_COUNT), false).values;
    const spike = evaluateStdDevSpike({ baseline: baseline.values, recentSum: sumRationals(recent), recentDays: recent.length });
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
