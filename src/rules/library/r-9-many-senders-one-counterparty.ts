import { defineDistinctCountRule } from '../kits/distinct-count.js';
import { paymentIdentifier } from '../series.js';

/**
 * R-9 Too many users transacting with a single counterparty: the distinct sender user ids that
 * paid the counterparty in the window, this transaction's sender included, are more than
 * `sendersCount` (strict `>`). The counterparty is the receiving user (`user-receiving` entries,
 * value `counterparty`) when the transaction has one, else the destination payment identifier
 * (`payment-destination` entries, value `counterpartyUser`) — so external, user-less beneficiaries
 * are covered too. Many customers funnelling money to one beneficiary is a collection-account /
 * money-mule and scam-victim signal (FATF money-mule typologies). No counterparty → no aggregate
 * and no hit; a sender-less transaction adds no sender but still sees the earlier ones.
 */
export const r9ManySendersOneCounterparty = defineDistinctCountRule({
  id: 'R-9',
  name: 'Too many users transacting with a single counterparty',
  description: 'More distinct users send to the same counterparty within a time window than allowed.',
  descriptionTemplate: 'The receiver was paid by {{count}} distinct users in {{window}}, more than the limit of {{limit}}.',
  limit: {
    parameter: 'sendersCount',
    title: 'Senders limit',
    description:
      'The rule hits when the number of distinct users that sent to the counterparty in the window, this transaction included, is greater than this.',
    default: 4,
  },
  defaultTimeWindow: { units: 30, granularity: 'day', rollingBasis: true },
  defaultNature: 'AML',
  checksFor: ['No. of users', 'Counterparty'],
  typologies: ['Money mules', 'Hidden/unusual relationships', 'Scams'],
  series: ['user-receiving', 'payment-destination'],
  readOf(transaction) {
    const sender = transaction.originUserId;
    const receiver = transaction.destinationUserId;
    if (receiver) return { series: 'user-receiving', key: receiver, field: 'counterparty', includeValue: sender };
    const identifier = paymentIdentifier(transaction.destinationPaymentDetails);
    return identifier === undefined ? null : { series: 'payment-destination', key: identifier, field: 'counterpartyUser', includeValue: sender };
  },
  direction: 'DESTINATION',
});
