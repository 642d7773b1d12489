// Package smoke test on dist/ (CommonJS).
const assert = require('node:assert/strict');
const txmon = require('txmon');
const testing = require('txmon/testing');

assert.equal(typeof txmon.createEngine, 'function');
assert.equal(typeof testing, 'object');
(async () => {
  const engine = txmon.createEngine();
  const r = await engine.createTransaction({ type: 'TRANSFER', transactionId: 'c-1', timestamp: 1_700_000_000_000 });
  assert.equal(r.status, 'ALLOW');
  console.log('smoke (cjs): ok');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
