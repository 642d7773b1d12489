import { Type, type Static } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { createSideNames, describeSide, planSides, receiverReads, senderReads, sideSeries, sumCounts, USER_SERIES, type SideRead } from '../kits/directions.js';
import { addIdsNeeds, evidenceWindow, newestIds, readNames, windowCountEvidence } from '../kits/evidence.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionsLimit: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Transactions limit',
      description: 'The rule hits when the number of transactions in the window, including this one, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
  },
  { additionalProperties: false, title: 'R-30 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NAMES = createSideNames('n');

/**
 * R-30 High velocity user: the user's transactions in the window, including this one, are more
 * than `transactionsLimit` (strict `>`), and the user has at least one earlier transaction in the
 * window. A classic velocity check against account takeover and mule activity.
 */
export const r30HighVelocityUser = defineRule({
  id: 'R-30',
  name: 'High velocity user',
  description: 'A user makes more than the allowed number of transactions within a time window.',
  descriptionTemplate: '{{side}} made {{count}} transactions in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    transactionsLimit: 100,
    timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
    checkSender: 'sending',
    checkReceiver: 'receiving',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['No. of transactions'],
  types: ['Velocity'],
  typologies: ['Account takeover fraud', 'Money mules'],
  series: USER_SERIES,
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    const end = transaction.timestamp;
    // Beside each count, the newest ids of its window: the evidence of a hit.
    return addIdsNeeds(
      planSides(transaction, parameters.checkSender, parameters.checkReceiver, NAMES, { start: windowStart(end, parameters.timeWindow), end }, 'count'),
    );
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    checkSide(hits, transaction, parameters, aggregates, 'ORIGIN', senderReads(transaction, parameters.checkSender, NAMES));
    checkSide(hits, transaction, parameters, aggregates, 'DESTINATION', receiverReads(transaction, parameters.checkReceiver, NAMES));
    return hits;
  },
});

/** One side's check (a module function, not a closure per call: the hot path allocates nothing). */
function checkSide(
  hits: RuleHit[],
  transaction: Transaction,
  parameters: Parameters,
  aggregates: Readonly<Record<string, AggregateValue>>,
  direction: 'ORIGIN' | 'DESTINATION',
  reads: readonly SideRead[] | null,
): void {
  if (!reads) return;
  const count = sumCounts(aggregates, reads);
  // "including the current one": count ≥ 2 means at least one earlier transaction exists.
  if (count > parameters.transactionsLimit && count >= 2) {
    const end = transaction.timestamp;
    const window = evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow);
    hits.push({
      direction,
      vars: {
        side: describeSide(direction),
        count,
        window: describeTimeWindow(parameters.timeWindow),
        limit: parameters.transactionsLimit,
      },
      evidence: [windowCountEvidence(direction, count, '>', parameters.transactionsLimit, window, newestIds(aggregates, readNames(reads)))],
    });
  }
}
