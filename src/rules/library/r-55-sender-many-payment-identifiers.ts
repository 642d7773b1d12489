import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { paymentIdentifier } from '../series.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    uniquePaymentIdentifiersCountThreshold: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Payment identifiers limit',
      description: 'The rule hits when the number of distinct origin payment identifiers the sender used in the window, this transaction included, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
  },
  { additionalProperties: false, title: 'R-55 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'identifiers';

/**
 * R-55 Same sender user using too many payment identifiers: the distinct origin payment
 * identifiers (DOMAIN.md §(a)) of the sender's sent transactions in the window, this one included,
 * are more than `uniquePaymentIdentifiersCountThreshold` (strict `>`, as Flagright's code; its
 * description text says ≥). Cycling through many cards or accounts is a card-testing, stolen-card
 * and account-takeover signal. No sender → no aggregate and no hit; a transaction without an origin
 * identifier still counts the sender's earlier identifiers.
 */
export const r55SenderManyPaymentIdentifiers: RuleDefinition<Parameters> = {
  id: 'R-55',
  name: 'Same sender user using too many payment identifiers',
  description: 'A sender uses more distinct payment identifiers within a time window than allowed.',
  descriptionTemplate: 'Sender used {{count}} payment identifiers in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    uniquePaymentIdentifiersCountThreshold: 10,
    timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Payment identifier', 'No. of payment identifiers'],
  types: ['Diversity'],
  typologies: ['Card testing', 'Stolen card fraud', 'Account takeover fraud'],
  series: ['user-sending'],
  aggregates({ transaction, parameters }): AggregateNeed[] {
    const key = transaction.originUserId;
    if (!key) return [];
    const end = transaction.timestamp;
    const id = paymentIdentifier(transaction.originPaymentDetails);
    // A distinct count cannot add the current transaction afterwards: its identifier is passed as present.
    return [
      {
        name: NEED,
        series: 'user-sending',
        key,
        start: windowStart(end, parameters.timeWindow),
        end,
        fn: 'distinct',
        field: 'paymentId',
        excludeId: transaction.transactionId,
        includeCurrent: false,
        ...(id === undefined ? {} : { includeValue: id }),
      },
    ];
  },
  check({ parameters, aggregates }): RuleHit[] {
    const count = aggregates[NEED];
    if (typeof count !== 'number' || count <= parameters.uniquePaymentIdentifiersCountThreshold) return [];
    return [
      {
        direction: 'ORIGIN',
        vars: { count, window: describeTimeWindow(parameters.timeWindow), limit: parameters.uniquePaymentIdentifiersCountThreshold },
      },
    ];
  },
};
