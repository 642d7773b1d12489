import { Type, type Static } from '@sinclair/typebox';
import { TimeWindowSchema, describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import { paymentIdentifier } from '../series.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    uniqueUsersCountThreshold: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Users limit',
      description: 'The rule hits when the number of distinct senders that used the origin payment identifier in the window, this transaction included, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
  },
  { additionalProperties: false, title: 'R-53 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'users';

/**
 * R-53 Same unique sender payment identifier used by too many users: the distinct sender user ids
 * seen with this transaction's origin payment identifier (DOMAIN.md §(a): card fingerprint, IBAN +
 * BIC, wallet id, …) in the window, this transaction's sender included, are more than
 * `uniqueUsersCountThreshold` (strict `>`). One card or account shared by many customers is a
 * synthetic-identity, account-sharing and money-mule signal (card testing rings, mule herding).
 * No origin identifier → no aggregate and no hit; a transaction without a sender still counts the
 * identifier's earlier users.
 */
export const r53SamePaymentIdentifierManyUsers: RuleDefinition<Parameters> = {
  id: 'R-53',
  name: 'Same unique sender payment identifier used by too many users',
  description: 'The same origin payment identifier is used by more distinct users within a time window than allowed.',
  descriptionTemplate: 'The sender payment identifier was used by {{count}} users in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    uniqueUsersCountThreshold: 10,
    timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['Payment identifier', 'No. of users'],
  types: ['Diversity'],
  typologies: ['Synthetic identity fraud', 'Money mules', 'Account sharing'],
  series: ['payment-origin'],
  aggregates({ transaction, parameters }): AggregateNeed[] {
    const key = paymentIdentifier(transaction.originPaymentDetails);
    if (key === undefined) return [];
    const end = transaction.timestamp;
    const user = transaction.originUserId;
    // A distinct count cannot add the current transaction afterwards: its sender is passed as present.
    return [
      {
        name: NEED,
        series: 'payment-origin',
        key,
        start: windowStart(end, parameters.timeWindow),
        end,
        fn: 'distinct',
        field: 'user',
        excludeId: transaction.transactionId,
        includeCurrent: false,
        ...(user ? { includeValue: user } : {}),
      },
    ];
  },
  check({ parameters, aggregates }): RuleHit[] {
    const count = aggregates[NEED];
    if (typeof count !== 'number' || count <= parameters.uniqueUsersCountThreshold) return [];
    return [
      {
        direction: 'ORIGIN',
        vars: { count, window: describeTimeWindow(parameters.timeWindow), limit: parameters.uniqueUsersCountThreshold },
      },
    ];
  },
};
