import { defineDistinctCountRule } from '../kits/distinct-count.js';
import { paymentIdentifier } from '../series.js';

/**
 * R-55 Same sender user using too many payment identifiers: the distinct origin payment identifiers
 * (docs/wire-format.md#payment-identifiers) of the sender's sent transactions in the window, this
 * one included, are more than `uniquePaymentIdentifiersCountThreshold` (strict `>`, as Flagright's
 * code; its description text says ≥). Cycling through many cards or accounts is a card-testing,
 * stolen-card and account-takeover signal. No sender → no aggregate and no hit; a transaction
 * without an origin identifier still counts the sender's earlier identifiers.
 */
export const r55SenderManyPaymentIdentifiers = defineDistinctCountRule({
  id: 'R-55',
  name: 'Same sender user using too many payment identifiers',
  description: 'A sender uses more distinct payment identifiers within a time window than allowed.',
  descriptionTemplate: 'Sender used {{count}} payment identifiers in {{window}}, more than the limit of {{limit}}.',
  limit: {
    parameter: 'uniquePaymentIdentifiersCountThreshold',
    title: 'Payment identifiers limit',
    description:
      'The rule hits when the number of distinct origin payment identifiers the sender used in the window, this transaction included, is greater than this.',
    default: 10,
  },
  defaultTimeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  defaultNature: 'FRAUD',
  checksFor: ['Payment identifier', 'No. of payment identifiers'],
  typologies: ['Card testing', 'Stolen card fraud', 'Account takeover fraud'],
  series: ['user-sending'],
  readOf(transaction) {
    const sender = transaction.originUserId;
    return sender ? { series: 'user-sending', key: sender, field: 'paymentId', includeValue: paymentIdentifier(transaction.originPaymentDetails) } : null;
  },
  direction: 'ORIGIN',
});
