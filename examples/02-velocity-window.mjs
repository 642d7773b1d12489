// Velocity over a rolling window: the 4th transfer within an hour is flagged; an hour later the
// window has moved on. Time is injected, so the example is deterministic.
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

let now = Date.UTC(2025, 5, 1, 9, 0, 0);
const engine = createEngine({ clock: { now: () => now } });
await engine.createRuleInstance({
  ruleId: 'R-30',
  ruleNameAlias: 'More than 3 transfers per hour',
  parameters: { transactionsLimit: 3, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
});

const minute = 60_000;
const results = [];
for (const [i, offset] of [0, 5, 10, 15, 75].entries()) {
  now = Date.UTC(2025, 5, 1, 9, 0, 0) + offset * minute;
  const r = await engine.createTransaction({
    type: 'TRANSFER',
    transactionId: `v-${i}`,
    timestamp: now,
    originUserId: 'u-42',
    destinationUserId: `shop-${i}`,
    originAmountDetails: { transactionAmount: 25, transactionCurrency: 'EUR' },
  });
  results.push(r.status);
  console.log(`+${offset} min`, r.status, r.hitRules[0]?.ruleDescription ?? '');
}
// 09:15 is the 4th in [08:15, 09:15]; at 10:15 only 09:15 (and itself) remain in the hour.
assert.deepEqual(results, ['ALLOW', 'ALLOW', 'ALLOW', 'FLAG', 'ALLOW']);
