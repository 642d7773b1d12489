import { describeDistinctUsersRule } from './kits/distinct-users-suite.js';
import type { TransactionInput } from '../helpers.js';

let n = 0;
/** `user` pays from IP `ip` (no IP → no device data). */
function pay(at: number, user: string | undefined, ip: string | undefined): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r52-${n}`,
    timestamp: at,
    ...(user === undefined ? {} : { originUserId: user }),
    destinationUserId: 'shop',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(ip === undefined ? {} : { originDeviceData: { ipAddress: ip } }),
    originPaymentDetails: { method: 'CARD', cardFingerprint: `card-${n}` },
  };
}

describeDistinctUsersRule({
  ruleId: 'R-52',
  title: 'Same IP address for too many users',
  pay,
  keys: ['10.0.0.1', '10.0.0.2'],
  keyName: 'IP',
  missingKey: 'a missing IP',
  rekey: { name: 'an event changing the device IP re-keys the entry to the new IP', attributes: { originDeviceData: { ipAddress: '10.0.0.2' } } },
});
