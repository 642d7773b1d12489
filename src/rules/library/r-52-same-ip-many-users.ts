import { defineDistinctCountRule } from '../kits/distinct-count.js';

/**
 * R-52 Same IP address for too many users: the distinct sender user ids seen with this
 * transaction's `originDeviceData.ipAddress` in the window, this transaction's sender included, are
 * more than `uniqueUsersCountThreshold` (strict `>`). Many customers behind one device address is
 * an account-farming, bot and money-mule signal. The IP is compared as sent (exact string).
 * No IP → no aggregate and no hit; a transaction without a sender still counts the IP's earlier users.
 */
export const r52SameIpManyUsers = defineDistinctCountRule({
  id: 'R-52',
  name: 'Same IP address for too many users',
  description: 'The same IP address is used by more distinct users within a time window than allowed.',
  descriptionTemplate: 'The IP address was used by {{count}} users in {{window}}, more than the limit of {{limit}}.',
  limit: {
    parameter: 'uniqueUsersCountThreshold',
    title: 'Users limit',
    description: 'The rule hits when the number of distinct senders seen with the IP address in the window, this transaction included, is greater than this.',
    default: 10,
  },
  defaultTimeWindow: { units: 1, granularity: 'day', rollingBasis: true },
  defaultNature: 'FRAUD',
  checksFor: ['IP address', 'No. of users'],
  typologies: ['Account takeover fraud', 'Money mules', 'Synthetic identity fraud'],
  series: ['ip'],
  readOf(transaction) {
    const ip = transaction.originDeviceData?.ipAddress;
    return ip ? { series: 'ip', key: ip, field: 'user', includeValue: transaction.originUserId } : null;
  },
  direction: 'ORIGIN',
});
