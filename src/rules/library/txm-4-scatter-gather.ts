import { Type, type Static } from '@sinclair/typebox';
import { MAX_FAN_OUT } from '../../aggregation/checks.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { distinctUserParties } from '../kits/directions.js';
import { evidenceWindow } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    timeWindow: TimeWindowSchema,
    minIntermediaries: Type.Integer({
      minimum: 2,
      maximum: MAX_FAN_OUT,
      title: 'Accounts in between',
      description:
        'The rule hits when at least this many distinct users that paid the receiver in the window (this transaction’s sender included) had each earlier received money from one and the same user.',
    }),
    maxTransfersPerAccount: Type.Integer({
      minimum: 1,
      maximum: MAX_FAN_OUT,
      title: 'Transfers read per account',
      description: `Only the receiver's latest this many received transfers in the window are read, and of each of its senders the latest this many received transfers (1 to ${MAX_FAN_OUT}). Bounds the work: at most f × (f + 2) transfers read per transaction, f this number, whatever the history.`,
    }),
  },
  { additionalProperties: false, title: 'TXM-4 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'TXM-4:shared';

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const parties = distinctUserParties(transaction);
  if (parties === null) return [];
  const end = transaction.timestamp;
  // This transfer is not stored yet: its sender is one of the receiver's senders as of now.
  return [
    createNeed(NEED, 'user-receiving', parties.destination, windowStart(end, parameters.timeWindow), end, 'sharedSource', transaction.transactionId, false, {
      field: 'counterparty',
      includeValue: parties.origin,
      fanOut: parameters.maxTransfersPerAccount,
    }),
  ];
}

/**
 * TXM-4 Scatter-gather through shared counterparties: money from one source spread over several
 * users who each pass it on to one collector. On a transfer to user C, among the distinct users
 * that paid C in the window (its latest `maxTransfersPerAccount` received transfers, this one
 * included), at least `minIntermediaries` each received money from one common user S before their
 * latest payment to C, all within `timeWindow` — S → {A, B, D …} → C. Splitting a sum over several
 * accounts and gathering it again hides the link between S and C (FATF: layering through
 * intermediaries, money-mule networks). The receiver (the collector) is hit.
 *
 * Read by the `sharedSource` graph aggregate over `user-receiving`, two hops back from C: C's
 * capped received transfers, then each sender's; neither C nor the sender itself counts as the
 * source, so money C sent out and got back is a cycle (TXM-2), not this. Historical filters choose
 * which transfers count (e.g. `transactionAmountRangeHistorical`: colleagues paid by one employer
 * who each pay a small bill to one shop share a source too, with small amounts). A self-transfer
 * is never checked.
 */
export const txm4ScatterGather = defineRule({
  id: 'TXM-4',
  name: 'Scatter-gather through shared counterparties',
  description: 'Several users who received money from one common source pass it on to the same receiver within a time window.',
  descriptionTemplate: 'The receiver was paid by {{count}} users who had each received money from one common source, within {{window}} (at least {{limit}}).',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    timeWindow: { units: 7, granularity: 'day', rollingBasis: true },
    minIntermediaries: 3,
    maxTransfersPerAccount: 16,
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Counterparty', 'Transaction graph'],
  types: ['Scatter-gather'],
  typologies: ['Layering', 'Money mules'],
  series: ['user-receiving'],
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, currentCounts }): RuleHit[] {
    // A transfer the historical filters refuse is no link of the scheme.
    if (currentCounts === false || distinctUserParties(transaction) === null) return [];
    const count = aggregates[NEED];
    if (typeof count !== 'number' || count < parameters.minIntermediaries) return [];
    const end = transaction.timestamp;
    return [
      {
        direction: 'DESTINATION',
        vars: { count, limit: parameters.minIntermediaries, window: describeTimeWindow(parameters.timeWindow) },
        // The graph aggregate answers a count, not the accounts: no ids.
        evidence: [
          {
            direction: 'DESTINATION',
            kind: 'sharedSourceCount',
            value: count,
            comparison: '>=',
            limit: parameters.minIntermediaries,
            window: evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow),
          },
        ],
      },
    ];
  },
});
