// Profiles the pure evaluation stage alone (plan + evaluate, aggregates from a real engine run),
// for `node --cpu-prof bench/profile-evaluate.mjs`. Not part of `npm run bench`.
import { collectAggregateNeeds, createEngine, evaluateRuleInstances, createFixedRateProvider } from '../dist/internals.js';
import { createInstanceConfigs, generateWorkload } from './workload.mjs';

const engine = createEngine({ ids: { next: (k) => `${k}-${Math.random()}` } });
const configs = createInstanceConfigs();
for (const c of configs) await engine.createRuleInstance(c.request);
const { operations } = generateWorkload({ operations: 20_000 });
const txs = operations.filter((o) => o.kind === 'transaction').map((o) => o.payload);
for (const t of txs.slice(0, 5000)) await engine.createTransaction(t);
const instances = (await engine.listRuleInstances()).map((instance) => ({ instance, rule: null, logic: null, filter: null }));
// Use the engine's own prepared instances through a private path: re-run through createTransaction is
// what the bench does; here we only time evaluation with an empty snapshot (all values default).
const prepared = await (async () => {
  const { createRuleRegistry, compileLogic } = await import('../dist/internals.js');
  const reg = createRuleRegistry();
  return instances.map(({ instance }) => ({
    instance,
    rule: instance.ruleId === 'CUSTOM' ? null : reg.get(instance.ruleId),
    logic: instance.ruleId === 'CUSTOM' ? compileLogic(instance.logic, { basePath: '/logic' }) : null,
    filter: null,
  }));
})();
const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
const sample = txs.slice(5000, 13000).map((t) => ({ ...t, transactionState: 'CREATED' }));
let n = 0;
const t0 = process.hrtime.bigint();
for (let round = 0; round < 5; round++) {
  for (const transaction of sample) {
    const input = { transaction, instances: prepared, originUser: null, destinationUser: null, money, defaultRiskLevel: 'VERY_HIGH' };
    const needs = collectAggregateNeeds(input);
    const snapshot = new Map(needs.map((need) => [need, need.fn === 'sum' ? 0n : 0]));
    evaluateRuleInstances(input, snapshot);
    n++;
  }
}
const us = Number(process.hrtime.bigint() - t0) / 1000 / n;
console.log(`plan + evaluate: ${us.toFixed(2)} µs per transaction (${prepared.length} instances)`);
