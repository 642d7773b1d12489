// A custom json-logic rule, and per-risk-level parameters of a library rule: a LOW-risk user may
// move more money than an unknown one (unknown users default to VERY_HIGH).
import assert from 'node:assert/strict';
import { createEngine } from 'txmon';

const engine = createEngine();
await engine.createUser({ userId: 'trusted', createdTimestamp: Date.UTC(2020, 0, 1), riskLevel: 'LOW' });
await engine.createRuleInstance({
  ruleNameAlias: 'Cash withdrawal over 1,000 in a high-risk country',
  logic: {
    and: [
      { '==': [{ var: 'transaction.type' }, 'WITHDRAWAL'] },
      { '>': [{ var: 'transaction.originAmountDetails.transactionAmount' }, 1000] },
      { in: [{ var: 'transaction.originAmountDetails.country' }, ['IR', 'KP', 'MM']] },
    ],
  },
  action: 'BLOCK',
});
const thresholds = { VERY_LOW: 50000, LOW: 50000, MEDIUM: 15000, HIGH: 5000, VERY_HIGH: 5000 };
await engine.createRuleInstance({
  ruleId: 'R-2',
  riskLevelParameters: Object.fromEntries(Object.entries(thresholds).map(([l, v]) => [l, { transactionAmountThreshold: { EUR: v } }])),
});

const base = { type: 'TRANSFER', timestamp: Date.now(), originAmountDetails: { transactionAmount: 8000, transactionCurrency: 'EUR' } };
const trusted = await engine.createTransaction({ ...base, transactionId: 'a', originUserId: 'trusted' });
const unknown = await engine.createTransaction({ ...base, transactionId: 'b', originUserId: 'stranger' });
const withdrawal = await engine.createTransaction({
  type: 'WITHDRAWAL',
  transactionId: 'c',
  timestamp: Date.now(),
  originUserId: 'trusted',
  originAmountDetails: { transactionAmount: 1500, transactionCurrency: 'EUR', country: 'IR' },
});
console.log({ trusted: trusted.status, unknown: unknown.status, withdrawal: withdrawal.status });
assert.deepEqual([trusted.status, unknown.status, withdrawal.status], ['ALLOW', 'SUSPEND', 'BLOCK']);
