// The README's first example: a threshold rule and a velocity rule, one transaction.
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

const engine = createEngine(); // in-memory repositories, system clock
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
await engine.createRuleInstance({
  ruleId: 'R-30', // more than 3 transfers from one user within 1 rolling hour
  parameters: { transactionsLimit: 3, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
});
const result = await engine.createTransaction({
  type: 'TRANSFER',
  transactionId: 'tx-1',
  timestamp: Date.now(),
  originUserId: 'alice',
  destinationUserId: 'bob',
  originAmountDetails: { transactionAmount: 12500, transactionCurrency: 'EUR', country: 'DE' },
});
console.log(
  result.status,
  result.hitRules.map((r) => r.ruleId),
); // SUSPEND [ 'R-2' ]

assert.equal(result.status, 'SUSPEND');
assert.deepEqual(
  result.hitRules.map((r) => r.ruleId),
  ['R-2'],
);
assert.equal(result.executedRules.length, 2);
