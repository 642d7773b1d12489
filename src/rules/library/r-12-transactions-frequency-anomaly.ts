import { defineAnomalyRule } from '../kits/anomaly.js';

/**
 * R-12 Transactions frequency anomaly: the sender's mean number of sent transactions per day
 * over the recent period is above the baseline's mean daily count plus 2 standard deviations of
 * those daily counts — a jump in how often an account sends (account takeover, mule activation,
 * card testing bursts).
 *
 * Exactly as R-11 (see `src/rules/kits/anomaly.ts`), with a day's value the number of the sender's
 * `user-sending` transactions that day: UTC calendar days; recent period = the 30 days ending
 * with this transaction's day (this transaction included); baseline = the 90 days before it,
 * counted from the first day with a transaction on (quiet days after it as 0); every recent day
 * counts. No hit with fewer than 10 baseline days with a transaction. Hits ORIGIN only.
 *
 * Cost: 91 `count` needs per transaction with a sender, each O(log n); 120 days of history.
 */
export const r12TransactionsFrequencyAnomaly = defineAnomalyRule({
  id: 'R-12',
  name: 'Transactions frequency anomaly',
  description:
    "A user's average number of transactions sent per day over the last 30 days is above the previous 90 days' daily average plus 2 standard deviations.",
  descriptionTemplate:
    'Sender made {{recentMean}} transactions per day over the last {{recentDays}} days, above the average of {{baselineMean}} plus 2 standard deviations of {{stdDev}} over the {{baselineDays}} days before.',
  checksFor: ['No. of transactions'],
  types: ['Anomaly detection', 'Velocity'],
  typologies: ['Unusual behaviour', 'Account takeover fraud', 'Money mules'],
  prefix: 'r12',
  daily: { kind: 'total', fn: 'count' },
  unit: 'number',
  evidenceField: 'dailyCount',
});
