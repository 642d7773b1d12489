import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { Transaction } from '../../domain/index.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import type { RuleEvidence } from '../../domain/schemas/results.js';
import { evidenceWindow } from '../kits/evidence.js';
import { createNeed } from '../kits/need.js';
import { createSideNames, describeSide, receiverReads, senderReads, sideSeries, USER_SERIES, type SideRead } from '../kits/directions.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { AggregateNeed, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    transactionsLimit: Type.Integer({
      minimum: 0,
      maximum: 300,
      title: 'Countries limit',
      description: 'The rule hits when the number of distinct counterparty countries in the window, this transaction included, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
    checkSender: CheckSenderSchema,
    checkReceiver: CheckReceiverSchema,
  },
  { additionalProperties: false, title: 'R-123 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NAMES = createSideNames('cc');
const FIELD = 'counterpartyCountry';

/** The counterparty country of a side of this transaction: the other side's country. */
function counterpartyCountry(transaction: Transaction, direction: 'ORIGIN' | 'DESTINATION'): string | undefined {
  return direction === 'ORIGIN' ? transaction.destinationAmountDetails?.country : transaction.originAmountDetails?.country;
}

function plan(transaction: Transaction, parameters: Parameters): AggregateNeed[] {
  const end = transaction.timestamp;
  const start = windowStart(end, parameters.timeWindow);
  const needs: AggregateNeed[] = [];
  const add = (direction: 'ORIGIN' | 'DESTINATION', userId: string | undefined, reads: readonly SideRead[] | null) => {
    if (!reads || !userId) return;
    // A distinct count cannot add the current transaction afterwards (whether its country is new
    // depends on the window), so the store counts its country as present (`includeValue`).
    const country = counterpartyCountry(transaction, direction);
    for (const r of reads)
      needs.push(createNeed(r.name, r.series, userId, start, end, 'distinct', transaction.transactionId, false, { field: FIELD, includeValue: country }));
  };
  add('ORIGIN', transaction.originUserId, senderReads(transaction, parameters.checkSender, NAMES));
  add('DESTINATION', transaction.destinationUserId, receiverReads(transaction, parameters.checkReceiver, NAMES));
  return needs;
}

/**
 * R-123 Too many counterparty countries: the distinct countries a user's counterparties were in,
 * within the window and including this transaction, are more than the limit (strict `>`). A user
 * suddenly paying into or receiving from many jurisdictions is a layering signal (FATF
 * Recommendation 10 ongoing due diligence; EBA ML/TF risk factor guidelines, geographical risk).
 * The counterparty country of a sent transaction is its destination country, of a received one
 * its origin country (`originAmountDetails.country` / `destinationAmountDetails.country`).
 */
export const r123CounterpartyCountries = defineRule({
  id: 'R-123',
  name: 'Too many counterparty countries',
  description: "A user's counterparties are in more distinct countries within a time window than allowed.",
  descriptionTemplate: '{{side}} transacted with counterparties in {{count}} countries in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    transactionsLimit: 2,
    timeWindow: { units: 1, granularity: 'hour', rollingBasis: true },
    checkSender: 'all',
    checkReceiver: 'all',
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  checksFor: ['Counterparty country'],
  types: ['Diversity'],
  typologies: ['Layering', 'Hidden/unusual relationships'],
  series: USER_SERIES,
  seriesFor: (p) => sideSeries(p.checkSender, p.checkReceiver),
  aggregates({ transaction, parameters }) {
    return plan(transaction, parameters);
  },
  check({ transaction, parameters, aggregates }): RuleHit[] {
    const hits: RuleHit[] = [];
    const side = (direction: 'ORIGIN' | 'DESTINATION', reads: readonly SideRead[] | null) => {
      if (!reads) return;
      let count = 0;
      for (const r of reads) {
        const v = aggregates[r.name];
        if (typeof v === 'number') count = Math.max(count, v);
      }
      if (count > parameters.transactionsLimit) {
        const end = transaction.timestamp;
        hits.push({
          direction,
          // The distinct countries only: the rule reads no count or ids of the window's transactions.
          evidence: [
            {
              direction,
              kind: 'distinct',
              field: FIELD,
              value: count,
              comparison: '>',
              limit: parameters.transactionsLimit,
              window: evidenceWindow(windowStart(end, parameters.timeWindow), end, parameters.timeWindow),
            } as RuleEvidence,
          ],
          vars: {
            side: describeSide(direction),
            count,
            window: describeTimeWindow(parameters.timeWindow),
            limit: parameters.transactionsLimit,
          },
        });
      }
    };
    side('ORIGIN', senderReads(transaction, parameters.checkSender, NAMES));
    side('DESTINATION', receiverReads(transaction, parameters.checkReceiver, NAMES));
    return hits;
  },
});
