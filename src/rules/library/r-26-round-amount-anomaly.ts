import { defineAnomalyRule } from '../kits/anomaly.js';
import { ROUND_ENTRIES } from '../kits/side-counts.js';

/**
 * R-26 Round-amount anomaly: the mean, over the recent period's days, of the daily share of the
 * sender's transactions with a round amount is above the baseline's mean daily share plus 2
 * standard deviations — a shift towards round sums, a structuring and fabricated-invoice
 * indicator (FATF trade-based money-laundering red flags; FinCEN structuring guidance).
 *
 * Exactly (see `src/rules/kits/anomaly.ts`): UTC calendar days; recent period = the 30 days ending
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
export const r26RoundAmountAnomaly = defineAnomalyRule({
  id: 'R-26',
  name: 'Round-amount anomaly',
  description:
    "A user's average daily share of round-amount transactions (multiples of 100) over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily share of round-amount transactions over the last {{recentDays}} days is {{recentMean}}%, above the average of {{baselineMean}}% plus 2 standard deviations of {{stdDev}}% over the {{baselineDays}} days before.",
  checksFor: ['Transaction amount', 'No. of transactions'],
  types: ['Anomaly detection'],
  typologies: ['Structuring', 'Trade-based money laundering'],
  prefix: 'r26',
  daily: {
    kind: 'ratio',
    numerator: { tag: 'r', fn: 'countIn', countIn: ROUND_ENTRIES },
    denominator: { tag: 'c', fn: 'count' },
    denominatorFirst: true,
  },
  unit: 'percent',
  evidenceField: 'dailyRoundShare',
});
