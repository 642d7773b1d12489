import { defineDistinctCountRule } from '../kits/distinct-count.js';
import { paymentIdentifier } from '../series.js';

/**
 * R-53 Same unique sender payment identifier used by too many users: the distinct sender user ids
 * seen with this transaction's origin payment identifier (docs/wire-format.md#payment-identifiers:
 * card fingerprint, IBAN + BIC, wallet id, …) in the window, this transaction's sender included,
 * are more than `uniqueUsersCountThreshold` (strict `>`). One card or account shared by many
 * customers is a synthetic-identity, account-sharing and money-mule signal (card testing rings,
 * mule herding). No origin identifier → no aggregate and no hit; a transaction without a sender
 * still counts the identifier's earlier users.
 */
export const r53SamePaymentIdentifierManyUsers = defineDistinctCountRule({
  id: 'R-53',
  name: 'Same unique sender payment identifier used by too many users',
  description: 'The same origin payment identifier is used by more distinct users within a time window than allowed.',
  descriptionTemplate: 'The sender payment identifier was used by {{count}} users in {{window}}, more than the limit of {{limit}}.',
  limit: {
    parameter: 'uniqueUsersCountThreshold',
    title: 'Users limit',
    description:
      'The rule hits when the number of distinct senders that used the origin payment identifier in the window, this transaction included, is greater than this.',
    default: 10,
  },
  defaultTimeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  defaultNature: 'FRAUD',
  checksFor: ['Payment identifier', 'No. of users'],
  typologies: ['Synthetic identity fraud', 'Money mules', 'Account sharing'],
  series: ['payment-origin'],
  readOf(transaction) {
    const identifier = paymentIdentifier(transaction.originPaymentDetails);
    return identifier ? { series: 'payment-origin', key: identifier, field: 'user', includeValue: transaction.originUserId } : null;
  },
  direction: 'ORIGIN',
});
