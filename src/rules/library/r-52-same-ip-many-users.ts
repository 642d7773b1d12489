import { Type, type Static } from '@sinclair/typebox';
import { TimeWindowSchema, describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

const ParametersSchema = Type.Object(
  {
    uniqueUsersCountThreshold: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      title: 'Users limit',
      description: 'The rule hits when the number of distinct senders seen with the IP address in the window, this transaction included, is greater than this.',
    }),
    timeWindow: TimeWindowSchema,
  },
  { additionalProperties: false, title: 'R-52 parameters' },
);
type Parameters = Static<typeof ParametersSchema>;

const NEED = 'users';

/**
 * R-52 Same IP address for too many users: the distinct sender user ids seen with this
 * transaction's `originDeviceData.ipAddress` in the window, this transaction's sender included, are
 * more than `uniqueUsersCountThreshold` (strict `>`). Many customers behind one device address is
 * an account-farming, bot and money-mule signal. The IP is compared as sent (exact string).
 * No IP → no aggregate and no hit; a transaction without a sender still counts the IP's earlier users.
 */
export const r52SameIpManyUsers: RuleDefinition<Parameters> = {
  id: 'R-52',
  name: 'Same IP address for too many users',
  description: 'The same IP address is used by more distinct users within a time window than allowed.',
  descriptionTemplate: 'The IP address was used by {{count}} users in {{window}}, more than the limit of {{limit}}.',
  parametersSchema: ParametersSchema,
  defaultParameters: {
    uniqueUsersCountThreshold: 10,
    timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  },
  defaultAction: 'FLAG',
  defaultNature: 'FRAUD',
  labels: [],
  defaultCasePriority: 'P1',
  checksFor: ['IP address', 'No. of users'],
  types: ['Diversity'],
  typologies: ['Account takeover fraud', 'Money mules', 'Synthetic identity fraud'],
  series: ['ip'],
  aggregates({ transaction, parameters }): AggregateNeed[] {
    const key = transaction.originDeviceData?.ipAddress;
    if (!key) return [];
    const end = transaction.timestamp;
    const user = transaction.originUserId;
    // A distinct count cannot add the current transaction afterwards: its sender is passed as present.
    return [
      {
        name: NEED,
        series: 'ip',
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
