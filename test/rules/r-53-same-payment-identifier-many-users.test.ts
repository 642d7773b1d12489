import { describeDistinctUsersRule } from './kits/distinct-users-suite.js';
import type { TransactionInput } from '../helpers.js';

let n = 0;
/** `user` pays with card `card` (no card → no origin identifier). */
function pay(at: number, user: string | undefined, card: string | undefined): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r53-${n}`,
    timestamp: at,
    ...(user === undefined ? {} : { originUserId: user }),
    destinationUserId: 'shop',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(card === undefined ? {} : { originPaymentDetails: { method: 'CARD', cardFingerprint: card } }),
  };
}

describeDistinctUsersRule({
  ruleId: 'R-53',
  title: 'Same unique sender payment identifier used by too many users',
  pay,
  keys: ['c', 'd'],
  keyName: 'identifier',
  missingKey: 'a missing origin identifier',
  rekey: {
    name: 'an event changing the payment details re-keys the entry to the new identifier',
    attributes: { originPaymentDetails: { method: 'CARD', cardFingerprint: 'd' } },
  },
});
