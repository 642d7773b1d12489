import { Type } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { createIdsNeed, evidenceWindow, newestIds, windowCountEvidence } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { pairKey } from '../series.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionsLimit: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Transactions limit',
      description: 'The rule hits when the transactions from this sender to this receiver in the window, this one included, are more than this.',
    }),
    timeWindow: TimeWindowSchema,
  },
  { additionalProperties: false, title: 'R-119 parameters' },
);

const COUNT = 'pairCount';

/**
 * R-119 High velocity between the same parties: the transactions from one sender to one receiver
 * within the window, including this one, are more than `transactionsLimit` (strict `>`). Repeated
 * transfers within one relationship point at layering or a mule pair. Only transactions between two
 * users count (the `user-pair` series, ordered: A→B and B→A are different pairs). Hits both sides.
 */
export const r119PairVelocity = defineRule({
  id: 'R-119',
  name: 'High velocity between the same parties',
  description: 'Too many transactions from the same sender to the same receiver within a time window.',
  descriptionTemplate: 'The sender made {{count}} transactions to this receiver in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { transactionsLimit: 100, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['No. of transactions'],
  types: ['Velocity'],
  typologies: ['Hidden/unusual relationships', 'Layering', 'Money mules'],
  series: ['user-pair'],
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    const { originUserId, destinationUserId } = transaction;
    if (!originUserId || !destinationUserId) return [];
    const end = transaction.timestamp;
    const count = createNeed(
      COUNT,
      'user-pair',
      pairKey(originUserId, destinationUserId),
      windowStart(end, parameters.timeWindow),
      end,
      'count',
      transaction.transactionId,
      true,
    );
    // Beside the count, the newest ids of its window: the evidence of a hit.
    return [count, createIdsNeed(count)];
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const count = aggregates[COUNT];
    if (!transaction.originUserId || !transaction.destinationUserId || typeof count !== 'number') return [];
    if (count <= parameters.transactionsLimit) return [];
    const vars = { count, window: describeTimeWindow(parameters.timeWindow), limit: parameters.transactionsLimit };
    const end = transaction.timestamp;
    const window = evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow);
    const ids = newestIds(aggregates, [COUNT]);
    return [
      { direction: 'ORIGIN', vars, evidence: [windowCountEvidence('ORIGIN', count, '>', parameters.transactionsLimit, window, ids, 'pairCount')] },
      { direction: 'DESTINATION', vars, evidence: [windowCountEvidence('DESTINATION', count, '>', parameters.transactionsLimit, window, ids, 'pairCount')] },
    ];
  },
});
