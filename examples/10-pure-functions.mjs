// The README's "Pure functions": one transaction and one event evaluated without an engine or a
// repository — a rule set, windows in an aggregate store, the event fold and the documented result.
import assert from 'node:assert/strict';
import { applyTransactionEvent, createAggregateStore, createRuleSet, initialTransaction, runRuleSet } from 'txmon';

const ruleSet = createRuleSet([
  { ruleId: 'R-2', action: 'SUSPEND', parameters: { transactionAmountThreshold: { EUR: 10000 } } },
  { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } },
]);
const store = createAggregateStore(); // the windows: yours to keep, persist or rebuild
const t = Date.UTC(2026, 0, 15, 9, 0);
const payment = (id, amount, at) => ({
  type: 'TRANSFER',
  transactionId: id,
  timestamp: at,
  originUserId: 'alice',
  destinationUserId: 'bob',
  originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR', country: 'DE' },
});

// A transaction: evaluated, then its entries join the windows.
const first = initialTransaction(payment('tx-1', 9000, t));
console.log(runRuleSet({ ruleSet, store, transaction: first }).result.status); // ALLOW

// An event raising its amount: the fold gives the new transaction, whose entries replace the old ones.
const raised = applyTransactionEvent(first, {
  transactionId: 'tx-1',
  timestamp: t + 60_000,
  transactionState: 'SUCCESSFUL',
  updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 12500, transactionCurrency: 'EUR', country: 'DE' } },
});
const { result } = runRuleSet({ ruleSet, store, transaction: raised, previous: first });
console.log(
  result.status,
  result.hitRules.map((r) => r.ruleId),
); // SUSPEND [ 'R-2' ]

assert.equal(raised.transactionState, 'SUCCESSFUL');
assert.equal(result.status, 'SUSPEND');
assert.deepEqual(
  result.hitRules.map((r) => r.ruleId),
  ['R-2'],
);
// Still one transaction in alice's hour: the event replaced its entry instead of adding one.
assert.equal(result.executedRules.length, 2);
