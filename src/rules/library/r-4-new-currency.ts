import { defineNewValueRule } from '../kits/newness.js';

/**
 * R-4 Transaction including a new currency: the sender, with at least `initialTransactions` earlier
 * sent transactions, sends in a currency none of them used; the receiver likewise receives in a new
 * currency. All time, by timestamp; this transaction excluded.
 */
export const r4NewCurrency = defineNewValueRule({
  id: 'R-4',
  name: 'Transaction including a new currency',
  description: 'A user with an established history transacts in a currency it never used before.',
  descriptionTemplate: '{{side}} used {{currency}} for the first time after {{history}} earlier transactions.',
  checksFor: ['Transaction currency'],
  typologies: ['Unusual behaviour'],
  field: 'currency',
  valueOf: (transaction, direction) =>
    (direction === 'ORIGIN'
      ? (transaction.originAmountDetails ?? transaction.destinationAmountDetails)
      : (transaction.destinationAmountDetails ?? transaction.originAmountDetails)
    )?.transactionCurrency,
  valueVar: 'currency',
});
