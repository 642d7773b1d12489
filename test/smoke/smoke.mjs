// Package smoke test on dist/ (ESM): the public entry points resolve through `exports` and work.
import assert from 'node:assert/strict';
import * as txmon from 'txmon';
import * as testing from 'txmon/testing';

assert.equal(typeof txmon.createEngine, 'function');
assert.equal(typeof txmon.createMemoryRepositories, 'function');
assert.equal(typeof testing, 'object');
const engine = txmon.createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 1 } } });
const r = await engine.createTransaction({
  type: 'TRANSFER', transactionId: 's-1', timestamp: 1_700_000_000_000, originUserId: 'u',
  originAmountDetails: { transactionAmount: 5, transactionCurrency: 'USD' },
});
assert.equal(r.status, 'SUSPEND');
try {
  await engine.createTransaction({});
  assert.fail('expected a validation error');
} catch (e) {
  assert.ok(txmon.isTxmonError(e));
  assert.equal(e.status, 400);
}
console.log('smoke (esm): ok');
