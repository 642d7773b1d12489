import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { formatMoney } from '../../domain/money.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { amountEvidence, createIdsNeed, evidenceWindow, newestIds, windowCountEvidence } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { amountThresholdsSchema, resolveThreshold, statedThreshold } from '../parameters.js';
import { pairKey } from '../series.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionVolumeThreshold: amountThresholdsSchema({
      minProperties: 1,
      title: 'Volume threshold',
      description: 'The rule hits when the volume from this sender to this receiver in the window, this transaction included, is at or above this amount.',
    }),
    timeWindow: TimeWindowSchema,
    transactionsLimit: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        title: 'Minimum number of transactions',
        description:
          'When set, the rule only hits when the pair made more than this many transactions in the window (the volume is spread over several transfers).',
      }),
    ),
  },
  { additionalProperties: false, title: 'R-126 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const SUM = 'pairSum';
const COUNT = 'pairCount';

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const { originUserId, destinationUserId } = transaction;
  if (!originUserId || !destinationUserId) return [];
  const end = transaction.timestamp;
  const key = pairKey(originUserId, destinationUserId);
  const start = windowStart(end, parameters.timeWindow);
  const id = transaction.transactionId;
  // The count is the evidence's number of transactions too, and its ids need the newest of them.
  const count = createNeed(COUNT, 'user-pair', key, start, end, 'count', id, true);
  return [createNeed(SUM, 'user-pair', key, start, end, 'sum', id, true), count, createIdsNeed(count)];
}

/**
 * R-126 High volume between the same parties: the volume from one sender to one receiver within
 * the window, including this transaction and converted into the threshold currency, is at or above
 * the threshold (≥; same exact-money rules as R-69). With `transactionsLimit`, the pair must also
 * have made more than that many transactions (strict `>`). Hits both sides.
 */
export const r126PairVolume = defineRule({
  id: 'R-126',
  name: 'High volume between the same parties',
  description: 'The volume from the same sender to the same receiver within a time window is at or above a threshold.',
  descriptionTemplate: 'The sender sent {{volume}} to this receiver in {{window}}, at or above {{threshold}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: { transactionVolumeThreshold: { USD: 10000 }, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Transaction volume'],
  types: ['Volume'],
  typologies: ['Hidden/unusual relationships', 'Layering'],
  series: ['user-pair'],
  readsEntryValues: false,
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates, money }): RuleHit[] {
    const total = aggregates[SUM];
    if (!transaction.originUserId || !transaction.destinationUserId || typeof total !== 'bigint') return [];
    const count = aggregates[COUNT];
    if (typeof count !== 'number') return [];
    if (parameters.transactionsLimit !== undefined && count <= parameters.transactionsLimit) return [];
    const resolved = resolveThreshold(parameters.transactionVolumeThreshold, total, money.baseCurrency, money, transaction.timestamp);
    if (!resolved || resolved.amount < resolved.threshold) return [];
    const vars = {
      volume: formatMoney(resolved.amount, resolved.currency),
      window: describeTimeWindow(parameters.timeWindow),
      threshold: statedThreshold(parameters.transactionVolumeThreshold, resolved),
    };
    const end = transaction.timestamp;
    const window = evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow);
    const facts = { window, transactionCount: count, transactionIds: newestIds(aggregates, [COUNT]) };
    const base = { amount: total, currency: money.baseCurrency };
    const evidence = (direction: 'ORIGIN' | 'DESTINATION'): RuleEvidence[] => {
      const items: RuleEvidence[] = [amountEvidence(direction, 'pairVolume', resolved, '>=', base, facts)];
      if (parameters.transactionsLimit !== undefined)
        items.push(windowCountEvidence(direction, count, '>', parameters.transactionsLimit, window, facts.transactionIds, 'pairCount'));
      return items;
    };
    return [
      { direction: 'ORIGIN', vars, evidence: evidence('ORIGIN') },
      { direction: 'DESTINATION', vars, evidence: evidence('DESTINATION') },
    ];
  },
});
