import { Type } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { addIdsNeeds, evidenceWindow, newestIds, windowCountEvidence } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import { paymentIdentifier, type SeriesName } from '../series.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    threshold: Type.Integer({
      minimum: 1,
      maximum: 1_000_000,
      title: 'Transactions threshold',
      description: 'The rule hits when the payment identifier appears in at least this many transactions in the window, this one included.',
    }),
    timeWindow: TimeWindowSchema,
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
  },
  { additionalProperties: false, title: 'R-94 parameters' },
);

type Direction = 'ORIGIN' | 'DESTINATION';

/** The series a side's identifier is counted in: its own side, plus the other side with 'all'. */
function seriesOf(direction: Direction, check: string): SeriesName[] {
  if (check === 'none') return [];
  const own: SeriesName = direction === 'ORIGIN' ? 'payment-origin' : 'payment-destination';
  const other: SeriesName = direction === 'ORIGIN' ? 'payment-destination' : 'payment-origin';
  return check === 'all' ? [own, other] : [own];
}

function identifierOf(transaction: Transaction, direction: Direction): string | undefined {
  return paymentIdentifier(direction === 'ORIGIN' ? transaction.originPaymentDetails : transaction.destinationPaymentDetails);
}

const needName = (direction: Direction, series: SeriesName) => `${direction}:${series}`;

/**
 * R-94 Payment identifier used too frequently: the origin (destination) payment identifier
 * (docs/wire-format.md#payment-identifiers: card fingerprint, IBAN + BIC, account number, …)
 * appears in at least `threshold` transactions in the window, this one included (`≥`, as
 * Flagright's code). `checkSender` / `checkReceiver` choose where the side's identifier is looked
 * for: `'sending'` / `'receiving'` — only on the same side (the origin identifier as an origin);
 * `'all'` — on both sides (the origin identifier as an origin or as a destination: the sum of both
 * counts, so a transaction carrying it on both sides counts twice); `'none'` — the side is not
 * checked. A side without an identifier asks for no aggregate and cannot hit. Rapid reuse of one
 * instrument is a card-testing, bust-out and mule-account signal.
 */
export const r94PaymentIdentifierFrequency = defineRule({
  id: 'R-94',
  name: 'Payment identifier used too frequently',
  description: 'A payment identifier appears in at least the allowed number of transactions within a time window.',
  descriptionTemplate: 'The {{side}} payment identifier appeared in {{count}} transactions in {{window}}, at least the threshold of {{threshold}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    threshold: 2,
    timeWindow: { units: 7, granularity: 'day', rollingBasis: true },
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  checksFor: ['Payment identifier', 'No. of transactions'],
  types: ['Velocity'],
  typologies: ['Card testing', 'Money mules', 'Bust-out fraud'],
  series: ['payment-origin', 'payment-destination'],
  readsEntryValues: false,
  aggregates({ transaction, parameters }): AggregateNeed[] {
    const end = transaction.timestamp;
    const start = windowStart(end, parameters.timeWindow);
    const needs: AggregateNeed[] = [];
    const add = (direction: Direction, check: string) => {
      const key = identifierOf(transaction, direction);
      if (key === undefined) return;
      for (const series of seriesOf(direction, check)) {
        needs.push(createNeed(needName(direction, series), series, key, start, end, 'count', transaction.transactionId, true));
      }
    };
    add('ORIGIN', parameters.checkSender);
    add('DESTINATION', parameters.checkReceiver);
    // Beside each count, the newest ids of its window: the evidence of a hit.
    return addIdsNeeds(needs);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    const side = (direction: Direction, check: string) => {
      if (identifierOf(transaction, direction) === undefined) return;
      const series = seriesOf(direction, check);
      if (series.length === 0) return;
      let count = 0;
      for (const s of series) {
        const v = aggregates[needName(direction, s)];
        if (typeof v === 'number') count += v;
      }
      if (count >= parameters.threshold) {
        const end = transaction.timestamp;
        const window = evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow);
        const ids = newestIds(
          aggregates,
          series.map((s) => needName(direction, s)),
        );
        hits.push({
          evidence: [windowCountEvidence(direction, count, '>=', parameters.threshold, window, ids, 'identifierCount')],
          direction,
          vars: {
            side: direction === 'ORIGIN' ? 'sender' : 'receiver',
            count,
            window: describeTimeWindow(parameters.timeWindow),
            threshold: parameters.threshold,
          },
        });
      }
    };
    side('ORIGIN', parameters.checkSender);
    side('DESTINATION', parameters.checkReceiver);
    return hits;
  },
});
