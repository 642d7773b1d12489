import type { Transaction } from '../../domain/index.js';
import { toScaled } from '../../domain/money.js';
import { defineMatchingCountRule, ROUND_ENTRIES } from '../kits/side-counts.js';

const HUNDRED = toScaled(100);

/** Whether the side's own amount (as the series keeps it: own side, else the other) is round. */
function isRound(transaction: Transaction, direction: 'ORIGIN' | 'DESTINATION'): boolean {
  const own =
    direction === 'ORIGIN'
      ? (transaction.originAmountDetails ?? transaction.destinationAmountDetails)
      : (transaction.destinationAmountDetails ?? transaction.originAmountDetails);
  if (!own) return false;
  const scaled = toScaled(own.transactionAmount);
  return scaled !== 0n && scaled % HUNDRED === 0n;
}

/**
 * R-130 Too many round transactions to the same user: one user receives (by default) more than
 * `transactionsLimit` round-amount transactions in the window, this one included — whole, non-zero
 * multiples of 100 in the amount's own currency, without conversion. Round-sum transfers piling up
 * on one account are a structuring / money-mule funnel indicator (FATF money-mule and
 * structuring red flags).
 *
 * Decisions:
 * - "The same user" is the user the side is filed under: by default the receiver
 *   (`checkReceiver: 'receiving'`, `checkSender: 'none'`); the sender side can be enabled too.
 * - Only a round transaction hits (the alert is on a transaction that adds to the pattern).
 * - `sameAmount` (only round transactions of one and the same amount) is NOT supported: the
 *   windowed store cannot count per amount exactly, so the parameter is not in the schema and an
 *   instance that sets it is rejected (`additionalProperties: false`). The payment-details
 *   matching flags of the original template are likewise not supported.
 * - `initialTransactions`: the user's all-time count in the side's series, this transaction
 *   included, must be at least this much.
 */
export const r130RoundTransactionsSameUser = defineMatchingCountRule({
  id: 'R-130',
  name: 'Too many round transactions to the same user',
  description: 'A user is party to more round-amount transactions (multiples of 100) within a time window than allowed.',
  descriptionTemplate: '{{side}} had {{count}} round-amount transactions in {{window}}, more than the limit of {{limit}}.',
  limitDescription:
    "The rule hits when the user's round transactions (the user's side amount is a whole, non-zero multiple of 100 in its own currency) in the window, this one included, are more than this. Only a round transaction hits.",
  initialTransactionsDescription:
    "When set, a side only hits once its user has at least this many transactions of all time (in the side's series, round or not, this one included).",
  parameters: {},
  defaultParameters: {
    timeWindow: { units: 7, granularity: 'day', rollingBasis: true },
    transactionsLimit: 10,
    checkSender: 'none',
    checkReceiver: 'receiving',
  },
  checksFor: ['Transaction amount', 'No. of transactions'],
  types: ['Velocity', 'Anomaly detection'],
  typologies: ['Structuring', 'Money mules'],
  matches: (transaction, direction) => isRound(transaction, direction),
  countsOf: (_, start) => [{ suffix: 'round', start, fn: 'countIn', countIn: ROUND_ENTRIES }],
  countOf: (sum) => sum('round'),
});
