/**
 * Adversarial review of the hot-path performance work (per-instance caches, money memos, aggregate
 * replace-in-place, response serialiser, asynchronous request log). `BUG-n` tests demonstrated bugs
 * of the reviewed commits and are regression tests since the fix; the others pin behaviour the
 * review checked.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories, evaluateRuleInstances, type EvaluationInput, type PreparedInstance, type Repositories } from '../../src/index.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import { T0, fixedClock, tx } from '../helpers.js';

describe('review: hot path', () => {
  it('BUG-1 a failing user read while the instances are still being read is an error of the call, not an unhandled rejection', async () => {
    const memory = createMemoryRepositories();
    const repositories: Repositories = {
      ...memory,
      ruleInstances: {
        ...memory.ruleInstances,
        // A database adapter: the revision takes real time.
        revision: () => new Promise((resolve) => setTimeout(() => void memory.ruleInstances.revision().then(resolve), 20)),
      },
      users: { ...memory.users, getUsers: () => Promise.reject(new Error('db down')) },
    };
    const engine = createEngine({ repositories, clock: fixedClock() });
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(engine.createTransaction(tx({ transactionId: 't-1' }))).rejects.toThrow('db down');
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
  });

  it("BUG-2 the engine never freezes the repository's own instance objects (an adapter may change them)", async () => {
    const repositories = createMemoryRepositories();
    const engine = createEngine({ repositories, clock: fixedClock() });
    const created = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 100 } } });
    const result = await engine.createTransaction(tx({ transactionId: 't-1', originAmountDetails: { transactionAmount: 500, transactionCurrency: 'EUR' } }));
    expect(result.status).toBe('SUSPEND');
    const stored = await repositories.ruleInstances.getStored(created.id);
    expect(Object.isFrozen(stored?.instance.parameters)).toBe(false);
    const listed = await repositories.ruleInstances.list();
    expect(Object.isFrozen(listed[0]?.parameters)).toBe(false);
  });

  it('a prepared instance given a new instance object is evaluated afresh (no stale shared not-hit result)', () => {
    const base = {
      id: 'ri-1',
      ruleId: 'R-2',
      parameters: { transactionAmountThreshold: { EUR: 1_000_000 } },
      action: 'FLAG',
      nature: 'AML',
      labels: [],
      mode: 'LIVE',
      status: 'ACTIVE',
      filters: {},
    } as unknown as PreparedInstance['instance'];
    const prepared = { instance: base, rule: r2TransactionAmount, logic: null, filter: null } as unknown as { instance: PreparedInstance['instance'] } & PreparedInstance;
    const instances = [prepared];
    const input = (t: ReturnType<typeof tx>) =>
      ({
        transaction: t,
        instances,
        originUser: null,
        destinationUser: null,
        money: { rates: { rate: () => '1' }, baseCurrency: 'EUR' },
        defaultRiskLevel: 'VERY_HIGH',
      }) as unknown as EvaluationInput;
    const first = evaluateRuleInstances(input(tx({ transactionId: 'a', timestamp: T0 })), []);
    expect(first.executedRules[0]?.isShadow).toBe(false);
    (prepared as { instance: unknown }).instance = { ...base, mode: 'SHADOW' };
    const second = evaluateRuleInstances(input(tx({ transactionId: 'b', timestamp: T0 + 1 })), []);
    expect(second.executedRules[0]?.isShadow).toBe(true);
  });
});
