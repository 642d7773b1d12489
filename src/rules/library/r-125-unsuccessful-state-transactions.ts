import { Type } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TRANSACTION_STATES } from '../../domain/enums.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { evidenceWindow } from '../kits/evidence.js';
import { createSideNames, describeSide, getSideReads, sideSeries, USER_SERIES } from '../kits/directions.js';
import { isShareAbovePercent, percentOf, planSideCounts, sumSideCounts } from '../kits/side-counts.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionStates: Type.Array(
      Type.Union(
        TRANSACTION_STATES.map((s) => Type.Literal(s)),
        { title: 'Transaction state', description: 'A transaction state (TransactionState).' },
      ),
      {
        title: 'Unsuccessful states',
        description: 'The states that count as unsuccessful. A transaction counts in the state it is in now (its latest event). Empty: the rule never hits.',
        maxItems: TRANSACTION_STATES.length,
        uniqueItems: true,
      },
    ),
    threshold: Type.Number({
      minimum: 0,
      maximum: 100,
      title: 'Percentage threshold',
      description:
        "The rule hits when the share of the user's transactions in the window (this one included) that are in one of the states is greater than this percentage. Compared exactly.",
    }),
    minimumTransactions: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Minimum transactions',
      description: 'The rule only hits when the user has at least this many transactions in the window (this one included).',
    }),
    timeWindow: TimeWindowSchema,
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
  },
  { additionalProperties: false, title: 'R-125 parameters' },
);

const NAMES = createSideNames('state');

/**
 * R-125 High percentage of unsuccessful state transactions: more than `threshold` % of a user's
 * transactions in the window (this one included) are in one of `transactionStates` (default
 * `REFUNDED`), once the user has at least `minimumTransactions` transactions in the window.
 * Refund and reversal abuse, and a card-testing / friendly-fraud signal (card scheme dispute
 * monitoring programmes; FATF red flags on frequent refunds).
 *
 * Decisions: a transaction counts in its CURRENT state — every event replaces its stored entry,
 * so a transaction refunded later counts as refunded from that event on (and the event itself is
 * evaluated with the new state); `minimumTransactions` counts the window; the comparison is exact
 * (`inStates × 100 > threshold × total` on scaled integers); any transaction of a user over the
 * percentage hits; an empty state list never hits.
 */
export const r125UnsuccessfulStateTransactions = defineRule({
  id: 'R-125',
  name: 'High percentage of unsuccesful state transactions',
  description: "A high share of a user's transactions within a time window end in unsuccessful states (e.g. refunded).",
  descriptionTemplate: '{{side}} has {{matched}} of {{total}} transactions in {{states}} in {{window}}, more than {{threshold}}%.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    transactionStates: ['REFUNDED'],
    threshold: 1,
    minimumTransactions: 3,
    timeWindow: { units: 7, granularity: 'day', rollingBasis: true },
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Transaction state', 'No. of transactions'],
  types: ['Anomaly detection'],
  typologies: ['Refund abuse', 'Card testing'],
  series: USER_SERIES,
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  aggregates({ transaction, parameters }) {
    if (parameters.transactionStates.length === 0) return [];
    const start = windowStart(transaction.timestamp, parameters.timeWindow);
    return planSideCounts(transaction, parameters, NAMES, () => [
      { suffix: 'total', start, fn: 'count' },
      { suffix: 'inStates', start, fn: 'countIn', countIn: { field: 'state', values: parameters.transactionStates } },
    ]);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    if (parameters.transactionStates.length === 0) return [];
    const hits: RuleHit[] = [];
    for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
      const reads = getSideReads(transaction, parameters, NAMES, direction);
      if (!reads) continue;
      const total = sumSideCounts(aggregates, reads, 'total');
      const matched = sumSideCounts(aggregates, reads, 'inStates');
      if (total < parameters.minimumTransactions || total === 0 || !isShareAbovePercent(matched, total, parameters.threshold)) continue;
      const window = evidenceWindow(windowStart(transaction.timestamp, parameters.timeWindow), transaction.timestamp, parameters.timeWindow);
      hits.push({
        direction,
        evidence: [
          // The transactions in the states against the threshold's share of the window's total:
          // `matched > threshold % × total`, the rule's exact comparison, the limit an exact decimal.
          {
            direction,
            kind: 'stateCount',
            value: matched,
            comparison: '>',
            limit: percentOf(parameters.threshold, total),
            window,
            transactionCount: total,
          },
          { direction, kind: 'transactionCount', value: total, comparison: '>=', limit: parameters.minimumTransactions, window },
        ],
        vars: {
          side: describeSide(direction),
          matched,
          total,
          states: parameters.transactionStates.join(', '),
          window: describeTimeWindow(parameters.timeWindow),
          threshold: parameters.threshold,
        },
      });
    }
    return hits;
  },
});
