import { defineNewValueRule } from '../kits/newness.js';

/**
 * R-3 Transaction to or from a new country: the sender, with at least `initialTransactions` earlier
 * sent transactions, sends to a destination country none of them went to; the receiver likewise
 * receives from a new origin country. Unexpected geography on an established account (FATF
 * Recommendation 10 ongoing due diligence). All time, by timestamp; this transaction excluded.
 */
export const r3NewCountry = defineNewValueRule({
  id: 'R-3',
  name: 'Transaction to or from a new country',
  description: 'A user with an established history transacts with a country it never transacted with before.',
  descriptionTemplate: '{{side}} transacted with {{country}} for the first time after {{history}} earlier transactions.',
  checksFor: ['Transaction country'],
  typologies: ['Unusual behaviour', 'Account takeover fraud'],
  field: 'counterpartyCountry',
  valueOf: (transaction, direction) => (direction === 'ORIGIN' ? transaction.destinationAmountDetails : transaction.originAmountDetails)?.country,
  valueVar: 'country',
});
