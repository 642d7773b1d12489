// Package smoke test on dist/ (CommonJS).
const assert = require('node:assert/strict');
const txmon = require('txmon');
const testing = require('txmon/testing');
const http = require('txmon/http');

assert.equal(typeof txmon.createEngine, 'function');
assert.equal(typeof testing, 'object');
assert.equal(typeof http.createHttpHandler, 'function');
assert.equal(typeof http.toNodeListener, 'function');
(async () => {
  const engine = txmon.createEngine();
  const r = await engine.createTransaction({ type: 'TRANSFER', transactionId: 'c-1', timestamp: 1_700_000_000_000 });
  assert.equal(r.status, 'ALLOW');
  console.log('smoke (cjs): ok');
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
