// What a regulator asks: which configuration flagged this payment, who changed it since, and can
// the record of decisions be trusted. Rule versions, the audit trail and the decision log.
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

const engine = createEngine();
const rule = await engine.createRuleInstance(
  { ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } }, action: 'FLAG' },
  { actor: 'ana@bank.example' },
);
const payment = (transactionId, amount) => ({
  type: 'TRANSFER',
  transactionId,
  timestamp: Date.now(),
  originUserId: 'erin',
  originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
});

const march = await engine.createTransaction(payment('p-1', 12000));
// Tightened later by someone else: each result names the version of the instance that decided it.
await engine.updateRuleInstance(rule.id, { parameters: { transactionAmountThreshold: { EUR: 5000 } }, action: 'SUSPEND' }, { actor: 'bob@bank.example' });
const april = await engine.createTransaction(payment('p-2', 6000));
console.log(march.hitRules[0].ruleInstanceVersion, april.hitRules[0].ruleInstanceVersion); // 1 2
assert.equal(march.hitRules[0].ruleInstanceVersion, 1);
assert.equal(april.status, 'SUSPEND');

// The configuration of March, and who changed it since.
const versions = await engine.getRuleInstanceVersions(rule.id); // newest first
const v1 = versions.find((v) => v.version === 1);
assert.deepEqual(v1.parameters.transactionAmountThreshold, { EUR: 10000 });
const changes = await engine.listAuditLog({ entityType: 'RULE_INSTANCE', entityId: rule.id });
console.log(changes.items.map((e) => `${e.action} by ${e.actor}`)); // [ 'CREATE by ana@bank.example', 'UPDATE by bob@bank.example' ]
assert.deepEqual(
  changes.items.map((e) => [e.action, e.actor]),
  [
    ['CREATE', 'ana@bank.example'],
    ['UPDATE', 'bob@bank.example'],
  ],
);

// The evidence of the hit: the amount compared and the threshold it crossed.
console.log(april.hitRules[0].ruleHitMeta.evidence);

// Every decision is chained by SHA-256: verify it, and keep the head somewhere else.
const report = await engine.verifyDecisionLog();
console.log(report.ok, report.count, report.head.hash.slice(0, 12)); // true 2 …
assert.equal(report.ok, true);
assert.equal(report.count, 2);
await engine.createTransaction(payment('p-3', 10));
// Later: the log must still pass through the head published then.
assert.equal((await engine.verifyDecisionLog({ anchor: report.head })).ok, true);
