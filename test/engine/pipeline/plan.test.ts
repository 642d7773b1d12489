import { describe, expect, it } from 'vitest';
import { collectAggregateNeeds, planRuleInstances } from '../../../src/engine/pipeline/plan.js';
import { evaluateRuleInstances } from '../../../src/engine/pipeline/evaluate.js';
import { createEvaluatorCache } from '../../../src/engine/pipeline/evaluator-cache.js';
import { DAY, HOUR, T0, testEngine, tx } from '../../helpers.js';
import { input, prepare, r14, transaction, user } from './fixtures.js';

describe('collectAggregateNeeds', () => {
  const r30 = (limit: number, units = 1) => ({
    ruleId: 'R-30',
    parameters: { transactionsLimit: limit, timeWindow: { units, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'receiving' },
  });

  it('returns nothing for stateless instances', () => {
    expect(collectAggregateNeeds(input([r14(true, 'FLAG'), prepare({ ruleId: 'R-2' })]))).toEqual([]);
  });

  it('lists each distinct need once, in order of first appearance (equal needs of two instances are merged)', () => {
    const needs = collectAggregateNeeds(input([prepare(r30(1)), prepare(r30(5))]));
    // Each count, then the newest ids of the same window (the evidence of a hit).
    expect(needs.map((n) => [n.series, n.key, n.start, n.end, n.fn])).toEqual([
      ['user-sending', 'alice', T0 - HOUR, T0, 'count'],
      ['user-receiving', 'bob', T0 - HOUR, T0, 'count'],
      ['user-sending', 'alice', T0 - HOUR, T0, 'lastEntries'],
      ['user-receiving', 'bob', T0 - HOUR, T0, 'lastEntries'],
    ]);
  });

  it('points every instance need at the distinct need answering it', () => {
    const plan = planRuleInstances(input([prepare(r30(1)), prepare(r30(1, 2)), prepare(r30(5))]));
    expect(plan.needs).toHaveLength(8);
    expect(plan.positions).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3]);
    expect(plan.instances.map((p) => p.offset)).toEqual([0, 4, 8]);
  });

  it('keeps merging equal needs over repeated plans with one cache, and stops when they differ', () => {
    const cache = createEvaluatorCache();
    const instances = [prepare(r30(1)), prepare(r30(5))];
    for (let i = 0; i < 200; i++) {
      const t = transaction({ timestamp: T0 + i * 1000 });
      expect(planRuleInstances(input(instances, { transaction: t, cache })).needs).toHaveLength(4);
    }
    const other = [prepare(r30(1)), prepare(r30(5, 2))];
    const plan = planRuleInstances(input(other, { cache }));
    expect(plan.needs).toHaveLength(8);
    expect(plan.positions).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('gives each instance the value of its need when needs are merged', () => {
    const instances = [prepare(r30(1)), prepare(r30(5))];
    const plan = planRuleInstances(input(instances));
    const result = evaluateRuleInstances(
      plan,
      plan.needs.map(() => 3),
    );
    expect(result.hitRules.map((h) => h.ruleInstanceId)).toEqual([instances[0]?.instance.id]);
  });

  it('keeps needs of different windows apart', () => {
    expect(collectAggregateNeeds(input([prepare(r30(1, 1)), prepare(r30(1, 2))]))).toHaveLength(8);
  });

  it('skips an instance whose filters keep it from running', () => {
    const filtered = prepare({ ...r30(1), filters: { transactionTypes: ['DEPOSIT'] } });
    expect(collectAggregateNeeds(input([filtered]))).toEqual([]);
  });

  it('plans with the parameters of the selected risk level', () => {
    const p = prepare({
      ruleId: 'R-30',
      riskLevelParameters: Object.fromEntries(
        (['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const).map((l) => [
          l,
          { transactionsLimit: 1, timeWindow: { units: l === 'LOW' ? 3 : 1, granularity: 'hour' }, checkSender: 'sending', checkReceiver: 'none' },
        ]),
      ),
    });
    const needs = collectAggregateNeeds(input([p], { originUser: user('alice', 'LOW') }));
    expect(needs.map((n) => n.start)).toEqual([T0 - 3 * HOUR, T0 - 3 * HOUR]);
  });

  it('gives a need without a user key for a missing side no entry', () => {
    const needs = collectAggregateNeeds(input([prepare(r30(1))], { transaction: transaction({ destinationUserId: undefined }) }));
    expect(needs.map((n) => n.series)).toEqual(['user-sending', 'user-sending']);
  });
});

/** The hit directions of rule `id` in a result. */
const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);
const hitIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);

describe('planRuleInstances through the engine: settings by risk level', () => {
  it('risk-level parameters apply to an instance with historical filters (limit by level, history filtered)', async () => {
    const { engine } = testEngine({ defaultRiskLevel: 'LOW' });
    const parameters = {
      transactionsLimit: 1,
      timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
      checkSender: 'sending',
      checkReceiver: 'none',
    };
    const byLevel = (limit: number) => ({ ...parameters, transactionsLimit: limit });
    await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters,
      filters: { transactionTypesHistorical: ['TRANSFER'] },
      riskLevelParameters: { VERY_LOW: byLevel(9), LOW: byLevel(1), MEDIUM: byLevel(9), HIGH: byLevel(9), VERY_HIGH: byLevel(9) },
    });
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(ruleHits(await engine.createTransaction(tx({ timestamp: T0 })), 'R-30')).toEqual(['ORIGIN']);
  });
});

describe('planRuleInstances through the engine: list lookups', () => {
  it('risk-level parameters pick the list by the sender level; a SHADOW instance hits without changing the status', async () => {
    const { engine } = testEngine({ defaultRiskLevel: 'LOW' });
    await engine.putList('low', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['nobody'] });
    await engine.putList('high', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
    await engine.createRuleInstance({
      ruleId: 'R-132',
      parameters: { blacklistId: 'low' },
      riskLevelParameters: {
        VERY_LOW: { blacklistId: 'low' },
        LOW: { blacklistId: 'low' },
        MEDIUM: { blacklistId: 'low' },
        HIGH: { blacklistId: 'high' },
        VERY_HIGH: { blacklistId: 'low' },
      },
    });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'high' }, mode: 'SHADOW' });
    const low = await engine.createTransaction(tx());
    expect(low.status).toBe('ALLOW');
    expect(low.hitRules.map((h) => h.isShadow)).toEqual([true]);
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: 'HIGH' });
    const high = await engine.createTransaction(tx());
    expect(high.status).toBe('BLOCK');
    expect(high.hitRules.map((h) => h.isShadow)).toEqual([false, true]);
  });

  it('instance filters gate lookups: a filtered-out instance never hits, a direction filter keeps only its side', async () => {
    const { engine } = testEngine();
    await engine.putList('bl', { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice', 'bob'] });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' }, filters: { transactionTypes: ['DEPOSIT'] } });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' }, filters: { checkDirection: 'DESTINATION' } });
    const r = await engine.createTransaction(tx());
    expect(hitIds(r)).toEqual(['R-132']);
    expect(ruleHits(r, 'R-132')).toEqual(['DESTINATION']);
  });
});

describe('planRuleInstances through the engine: the current transaction and historical filters', () => {
  const ip = (userId: string, type: string, at: number) =>
    tx({ type, timestamp: at, originUserId: userId, destinationUserId: 'shop', originDeviceData: { ipAddress: '10.0.0.1' } });

  it('R-52: a current transaction that passes the historical filters adds its sender to the distinct count', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({
      ruleId: 'R-52',
      parameters: { uniqueUsersCountThreshold: 2, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      filters: { transactionTypesHistorical: ['DEPOSIT'] },
    });
    await engine.createTransaction(ip('u-1', 'DEPOSIT', T0 - 2 * HOUR));
    await engine.createTransaction(ip('u-2', 'DEPOSIT', T0 - HOUR));
    expect(ruleHits(await engine.createTransaction(ip('u-3', 'DEPOSIT', T0)), 'R-52')).toEqual(['ORIGIN']);
  });

  describe('edge cases', () => {
    it('R-52: a current transaction that fails the historical filters does not add its sender to the distinct count', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-52',
        parameters: { uniqueUsersCountThreshold: 2, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
        filters: { transactionTypesHistorical: ['DEPOSIT'] },
      });
      await engine.createTransaction(ip('u-1', 'DEPOSIT', T0 - 2 * HOUR));
      await engine.createTransaction(ip('u-2', 'DEPOSIT', T0 - HOUR));
      // 2 passing senders; the current TRANSFER fails the filter: 2, not > 2.
      expect(ruleHits(await engine.createTransaction(ip('u-3', 'TRANSFER', T0)), 'R-52')).toEqual([]);
    });

    it('R-10: a current transaction that fails the historical filters does not add its counterparty', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-10',
        parameters: { sendersCount: 2, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
        filters: { transactionCountriesHistorical: ['DE'] },
      });
      const de = { transactionAmount: 10, transactionCurrency: 'EUR', country: 'DE' };
      const gb = { transactionAmount: 10, transactionCurrency: 'GBP', country: 'GB' };
      await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR, destinationUserId: 'c-1', originAmountDetails: de, destinationAmountDetails: de }));
      await engine.createTransaction(tx({ timestamp: T0 - HOUR, destinationUserId: 'c-2', originAmountDetails: de, destinationAmountDetails: de }));
      // 2 counterparties in DE transactions; the current GB one fails the filter: 2, not > 2.
      const result = await engine.createTransaction(tx({ timestamp: T0, destinationUserId: 'c-3', originAmountDetails: gb, destinationAmountDetails: gb }));
      expect(ruleHits(result, 'R-10')).toEqual([]);
    });
  });
});
