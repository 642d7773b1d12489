import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { TimeWindowSchema } from '../../domain/schemas/time-window.js';
import { paymentIdentifier } from '../series.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    sendersCount: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Senders limit',
      description: 'The rule hits when the number of distinct users that sent to the counterparty in the window, this transaction included, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
  },
  { additionalProperties: false, title: 'R-9 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'senders';

/**
 * R-9 Too many users transacting with a single counterparty: the distinct sender user ids that
 * paid the counterparty in the window, this transaction's sender included, are more than
 * `sendersCount` (strict `>`). The counterparty is the receiving user (`user-receiving` entries,
 * value `counterparty`) when the transaction has one, else the destination payment identifier
 * (`payment-destination` entries, value `counterpartyUser`) — so external, user-less beneficiaries
 * are covered too. Many customers funnelling money to one beneficiary is a collection-account /
 * money-mule and scam-victim signal (FATF money-mule typologies). No counterparty → no aggregate
 * and no hit; a sender-less transaction adds no sender but still sees the earlier ones.
 */
export const r9ManySendersOneCounterparty: RuleDefinition<Parameters> = {
  id: 'R-9',
  name: 'Too many users transacting with a single counterparty',
  description: 'More distinct users send to the same counterparty within a time window than allowed.',
  descriptionTemplate: 'The receiver was paid by {{count}} distinct users in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    sendersCount: 4,
    timeWindow: { units: 30, granularity: 'day', rollingBasis: true },
  },
  defaultAction: 'FLAG',
  defaultNature: 'AML',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['No. of users', 'Counterparty'],
  types: ['Diversity'],
  typologies: ['Money mules', 'Hidden/unusual relationships', 'Scams'],
  series: ['user-receiving', 'payment-destination'],
  aggregates({ transaction, parameters }): AggregateNeed[] {
    const receiver = transaction.destinationUserId;
    const identifier = receiver ? undefined : paymentIdentifier(transaction.destinationPaymentDetails);
    if (!receiver && identifier === undefined) return [];
    const end = transaction.timestamp;
    const sender = transaction.originUserId;
    // A distinct count cannot add the current transaction afterwards: its sender is passed as present.
    return [
      {
        name: NEED,
        ...(receiver ? { series: 'user-receiving', key: receiver, field: 'counterparty' } : { series: 'payment-destination', key: identifier as string, field: 'counterpartyUser' }),
        start: windowStart(end, parameters.timeWindow),
        end,
        fn: 'distinct',
        excludeId: transaction.transactionId,
        includeCurrent: false,
        ...(sender ? { includeValue: sender } : {}),
      },
    ];
  },
  check({ parameters, aggregates }): RuleHit[] {
    const count = aggregates[NEED];
    if (typeof count !== 'number' || count <= parameters.sendersCount) return [];
    return [{ direction: 'DESTINATION', vars: { count, window: describeTimeWindow(parameters.timeWindow), limit: parameters.sendersCount } }];
  },
};
