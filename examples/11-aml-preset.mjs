// The shipped AML rule set (docs/detection.md): five customers each pay one collector 900 EUR
// within two days — a fan-in — and the fifth payment is flagged, with alerts opened for the
// collector. Users are created first: the fan-out instance looks at consumers only.
import assert from 'node:assert/strict';
import { createEngine, presets } from 'txmon';

const start = Date.UTC(2026, 2, 2, 10, 0, 0);
const engine = createEngine({ baseCurrency: 'EUR', clock: { now: () => start + 3 * 86_400_000 } });
for (const instance of presets.amlBaseline()) await engine.createRuleInstance(instance);
console.log(`${(await engine.listRuleInstances()).length} instances`);

for (const userId of ['collector', 's-1', 's-2', 's-3', 's-4', 's-5']) {
  await engine.createUser({ userId, createdTimestamp: start - 400 * 86_400_000 }, { type: 'CONSUMER' });
}
const statuses = [];
for (let i = 1; i <= 5; i++) {
  const result = await engine.createTransaction({
    type: 'TRANSFER',
    transactionId: `fan-in-${i}`,
    timestamp: start + i * 8 * 3_600_000,
    originUserId: `s-${i}`,
    destinationUserId: 'collector',
    originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' },
    destinationAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' },
  });
  statuses.push(result.status);
  for (const hit of result.hitRules) console.log(`fan-in-${i}: ${hit.ruleName}: ${hit.ruleDescription}`);
}
assert.deepEqual(statuses, ['ALLOW', 'ALLOW', 'ALLOW', 'ALLOW', 'FLAG']);
// Both the fan-in instance (senders into one account) and the fan-out one (counterparties of one
// consumer, either way) see the collector: an alert each.
const alerts = await engine.listAlerts();
assert.equal(alerts.length, 2);
for (const alert of alerts) console.log(`alert for ${alert.userId}: ${alert.ruleDetails.name}`);
assert.deepEqual(new Set(alerts.map((alert) => alert.userId)), new Set(['collector']));
