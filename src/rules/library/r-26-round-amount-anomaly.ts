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
  planDayNeeds,
  createRatio,
  readCount,
  sumRationals,
  type Rational,
} from '../anomaly.js';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {},
  {
    additionalProperties: false,
    title: 'R-26 parameters',
    description: 'None: the periods (30 recent days, 90 baseline days before them) and the 2 standard deviations are fixed.',
  },
);
type Parameters = Static<typeof ParametersSchema>;

const RECENT_ROUND = createDayNames('r26:rr', ANOMALY_RECENT_DAYS);
const RECENT_COUNT = createDayNames('r26:rc', ANOMALY_RECENT_DAYS);
const BASELINE_ROUND = createDayNames('r26:br', ANOMALY_BASELINE_DAYS);
const BASELINE_COUNT = createDayNames('r26:bc', ANOMALY_BASELINE_DAYS);
const ROUND = { field: 'round', values: ['1'] } as const;

/** Daily shares of round transactions (0..1), oldest first; `null` for a day without a transaction. */
function dailyShares(aggregates: Readonly<Record<string, AggregateValue>>, rounds: readonly string[], counts: readonly string[]): (Rational | null)[] {
  const out: (Rational | null)[] = [];
  for (let i = rounds.length - 1; i >= 0; i--) {
    const count = readCount(aggregates, counts[i] as string);
    out.push(count > 0n ? createRatio(readCount(aggregates, rounds[i] as string), count) : null);
  }
  return out;
}

/**
 * R-26 Round-amount anomaly: the mean, over the recent period's days, of the daily share of the
 * sender's transactions with a round amount is above the baseline's mean daily share plus 2
 * standard deviations — a shift towards round sums, a structuring and fabricated-invoice
 * indicator (FATF trade-based money-laundering red flags; FinCEN structuring guidance).
 *
 * Exactly (see `src/rules/anomaly.ts`): UTC calendar days; recent period = the 30 days ending
 * with this transaction's day (this transaction included), baseline = the 90 days before it. A
 * day's value is round / all of the sender's `user-sending` transactions that day (a bigint
 * rational; round = the sender's amount is a whole, non-zero multiple of 100 in its own currency,
 * as R-124); a day without a transaction has no value and is left out of both means. No hit with
 * fewer than 10 baseline days with a transaction. Hits ORIGIN only.
 *
 * Cost: 240 needs per transaction with a sender (a `count` and a `countIn` per day over 120
 * days); `count` is O(log n), `countIn` scans days under 32 transactions and otherwise rebuilds a
 * value tally of the day; 120 days of history.
 */
export const r26RoundAmountAnomaly: RuleDefinition<Parameters> = {
  id: 'R-26',
  name: 'Round-amount anomaly',
  description: "A user's average daily share of round-amount transactions (multiples of 100) over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily share of round-amount transactions over the last {{recentDays}} days is {{recentMean}}%, above the average of {{baselineMean}}% plus 2 standard deviations of {{stdDev}}% over the {{baselineDays}} days before.",
  parametersSchema: ParametersSchema,
  defaultParameters: {},
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Transaction amount', 'No. of transactions'],
  types: ['Anomaly detection'],
  typologies: ['Structuring', 'Trade-based money laundering'],
  series: ['user-sending'],
  aggregates({ transaction }) {
    if (!transaction.originUserId) return [];
    const days = computeAnomalyDays(transaction.timestamp);
    const needs: AggregateNeed[] = [];
    planDayNeeds(transaction, RECENT_COUNT, days.recentDays, 'count', needs);
    planDayNeeds(transaction, RECENT_ROUND, days.recentDays, 'countIn', needs, ROUND);
    planDayNeeds(transaction, BASELINE_COUNT, days.baselineDays, 'count', needs);
    return planDayNeeds(transaction, BASELINE_ROUND, days.baselineDays, 'countIn', needs, ROUND);
  },
  check({ transaction, aggregates }): RuleHit[] {
    if (!transaction.originUserId) return [];
    const baseline = collectDailyValues(dailyShares(aggregates, BASELINE_ROUND, BASELINE_COUNT), false);
    if (baseline.activeDays < ANOMALY_MIN_BASELINE_DAYS) return [];
    const recent = collectDailyValues(dailyShares(aggregates, RECENT_ROUND, RECENT_COUNT), false).values;
    const spike = evaluateStdDevSpike({ baseline: baseline.values, recentSum: sumRationals(recent), recentDays: recent.length });
    if (!spike?.hit) return [];
    return [
      {
        direction: 'ORIGIN',
        vars: {
          recentDays: ANOMALY_RECENT_DAYS,
          baselineDays: ANOMALY_BASELINE_DAYS,
          recentMean: formatRational(spike.recentMean, 2, 100n),
          baselineMean: formatRational(spike.baselineMean, 2, 100n),
          stdDev: formatStdDev(spike.variance, 2, 100n),
        },
      },
    ];
  },
};
