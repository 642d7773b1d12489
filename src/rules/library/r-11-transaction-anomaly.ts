import { defineAnomalyRule } from '../kits/anomaly.js';

/**
 * R-11 Transaction anomaly: the sender's mean daily sending volume over the recent period is
 * above the mean daily volume of the baseline plus 2 standard deviations of those daily volumes
 * — a sudden, sustained rise in what an account sends (account takeover, money-mule activation,
 * the "unusual activity compared with the customer's profile" of FATF / FinCEN red flags).
 *
 * Exactly (see `src/rules/kits/anomaly.ts`): UTC calendar days; the recent period is the 30 days
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
export const r11TransactionAnomaly = defineAnomalyRule({
  id: 'R-11',
  name: 'Transaction anomaly',
  description: "A user's average daily sending volume over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    "Sender's average daily volume over the last {{recentDays}} days is {{recentMean}}, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.",
  checksFor: ['Transaction amount'],
  types: ['Anomaly detection'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  prefix: 'r11',
  daily: { kind: 'total', fn: 'sum' },
  unit: 'amount',
  evidenceField: 'dailyVolume',
});
