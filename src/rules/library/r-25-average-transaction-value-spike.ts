import { defineAnomalyRule } from '../kits/anomaly.js';

/**
 * R-25 Average transaction value spike: the mean, over the recent period's days, of the sender's
 * daily average sent amount is above the baseline's mean daily average plus 2 standard
 * deviations — the account suddenly sends larger payments than it used to (account takeover,
 * authorised push-payment scams, card fraud cash-out).
 *
 * Exactly (see `src/rules/kits/anomaly.ts`): UTC calendar days; recent period = the 30 days ending
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
export const r25AverageTransactionValueSpike = defineAnomalyRule({
  id: 'R-25',
  name: 'Average transaction value spike',
  description: "A user's average daily transaction amount over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily transaction amount over the last {{recentDays}} days is {{recentMean}}, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.",
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Card fraud'],
  prefix: 'r25',
  daily: { kind: 'ratio', numerator: { tag: 's', fn: 'sum' }, denominator: { tag: 'c', fn: 'amountCount' } },
  unit: 'amount',
  evidenceField: 'dailyAverageAmount',
});
