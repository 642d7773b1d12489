import { defineLowValueRule } from '../kits/low-value.js';

/**
 * R-7 Too many transactions under reporting limit received by a user: the receiver's last
 * `lowTransactionCount` incoming transactions (this one included; `user-receiving` entries, the
 * destination amount) are all within the low-value range — structuring ("smurfing") just under a
 * reporting threshold (FATF structuring red flags; FinCEN 31 CFR 1010.314). Hits DESTINATION.
 *
 * Decisions: "last" is by (timestamp, transaction id) among transactions at or before this one's
 * timestamp (a later-timestamped transaction that arrived earlier is not among them); a user with
 * fewer than `lowTransactionCount` transactions never hits; every amount, this one's included, is
 * judged by its stored base-currency amount against the range resolved as R-69 resolves
 * thresholds; an amount without a rate is never low-value. The look-back is the whole history,
 * so a retention prune keeps this rule's series whole, unless the optional `timeWindow` bounds it:
 * then the last N must all lie within the window (a slow run, such as monthly salaries under the
 * limit, is not structuring).
 */
export const r7LowValueIncomingTransactions = defineLowValueRule('DESTINATION', {
  id: 'R-7',
  name: 'Too many transactions under reporting limit received by a user',
  description: "The receiver's last transactions received are all within a low-value range.",
  descriptionTemplate: 'The last {{count}} transactions received by the receiver are all in the low-value range ({{range}}){{within}}.',
});
