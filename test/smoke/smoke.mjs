// Package smoke test on dist/ (ESM): the public entry points resolve through `exports` and work.
import assert from 'node:assert/strict';
import * as txmon from 'txmon';
import * as testing from 'txmon/testing';
import { createHttpHandler } from 'txmon/http';

assert.equal(typeof txmon.createEngine, 'function');
assert.equal(typeof txmon.createMemoryRepositories, 'function');
assert.equal(typeof testing, 'object');
const engine = txmon.createEngine();
await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { USD: 1 } } });
const r = await engine.createTransaction({
  type: 'TRANSFER',
  transactionId: 's-1',
  timestamp: 1_700_000_000_000,
  originUserId: 'u',
  originAmountDetails: { transactionAmount: 5, transactionCurrency: 'USD' },
});
assert.equal(r.status, 'SUSPEND');
const handler = createHttpHandler({ engine, apiKeys: ['smoke-key-0123456789'] });
const viaHttp = await handler(new Request('http://x/transactions/s-1', { headers: { 'x-api-key': 'smoke-key-0123456789' } }));
assert.equal(viaHttp.status, 200);
assert.equal((await handler(new Request('http://x/transactions/s-1'))).status, 401);
try {
  await engine.createTransaction({});
  assert.fail('expected a validation error');
} catch (e) {
  assert.ok(txmon.isTxmonError(e));
  assert.equal(e.status, 400);
}
console.log('smoke (esm): ok');
