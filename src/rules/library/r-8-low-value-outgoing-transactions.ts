import { defineLowValueRule } from '../kits/low-value.js';

/**
 * R-8 Too many transactions under reporting limit sent by a user: as R-7
 * (`r-7-low-value-incoming-transactions.ts`) for the sender's last outgoing transactions
 * (`user-sending` entries, the origin amount). Hits ORIGIN.
 */
export const r8LowValueOutgoingTransactions = defineLowValueRule('ORIGIN', {
  id: 'R-8',
  name: 'Too many transactions under reporting limit sent by a user',
  description: "The sender's last transactions sent are all within a low-value range.",
  descriptionTemplate: 'The last {{count}} transactions sent by the sender are all in the low-value range ({{range}}){{within}}.',
});
