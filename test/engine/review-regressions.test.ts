import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, tx } from '../helpers.js';

// Regressions for the findings of the independent review (see docs/decisions.md D-50, D-21, D-93).

describe('createTransaction under concurrency', () => {
  it('evaluates concurrent transactions of one user one after the other (a split payment cannot evade R-69 or R-1)', async () => {
    const run = async (parallel: boolean) => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 5000 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      });
      await engine.createRuleInstance({ ruleId: 'R-1' });
      const bodies = Array.from({ length: 10 }, (_, i) =>
        tx({ transactionId: `split-${i}`, timestamp: T0 + i, originAmountDetails: { transactionAmount: 1000, transactionCurrency: 'USD' } }),
      );
      const results = parallel
        ? await Promise.all(bodies.map((b) => engine.createTransaction(b)))
        : await (async () => {
            const out = [];
            for (const b of bodies) out.push(await engine.createTransaction(b));
            return out;
          })();
      const count = (ruleId: string) => results.filter((r) => r.hitRules.some((h) => h.ruleId === ruleId)).length;
      return { r69: count('R-69'), r1: count('R-1') };
    };
    const sequential = await run(false);
    expect(sequential).toEqual({ r69: 6, r1: 1 });
    expect(await run(true)).toEqual(sequential);
  });

  it('many operations in flight at once, contending for their users, decide as one after the other', async () => {
    // 150 transactions started together over 25 senders and 10 receivers, then 60 events: hundreds
    // of lock keys held at once, with waiters on most of them.
    const run = async (parallel: boolean) => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 2500 }, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
      });
      await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 4, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } } });
      await engine.createRuleInstance({ ruleId: 'R-1' });
      const bodies = Array.from({ length: 150 }, (_, i) =>
        tx({
          transactionId: `many-${i}`,
          timestamp: T0 + i,
          originUserId: `sender-${i % 25}`,
          destinationUserId: `receiver-${i % 10}`,
          originAmountDetails: { transactionAmount: 700 + i, transactionCurrency: 'USD' },
        }),
      );
      const events = Array.from({ length: 60 }, (_, i) => ({
        transactionId: `many-${(i * 7) % 150}`,
        eventId: `many-event-${i}`,
        timestamp: T0 + 1000 + i,
        transactionState: 'SUCCESSFUL',
        updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 10 + i, transactionCurrency: 'USD' } },
      }));
      const summary = (r: { hitRules: readonly { ruleInstanceId: string }[]; status: string }) => `${r.status}:${r.hitRules.map((h) => h.ruleInstanceId).join(',')}`;
      let created: string[];
      let updated: string[];
      if (parallel) {
        created = (await Promise.all(bodies.map((b) => engine.createTransaction(b)))).map(summary);
        updated = (await Promise.all(events.map((e) => engine.createTransactionEvent(e)))).map(summary);
      } else {
        created = [];
        for (const b of bodies) created.push(summary(await engine.createTransaction(b)));
        updated = [];
        for (const e of events) updated.push(summary(await engine.createTransactionEvent(e)));
      }
      const counters = (await engine.listRuleInstances()).map((i) => [i.id, i.runCount, i.hitCount]);
      return { created, updated, counters };
    };
    const sequential = await run(false);
    expect(sequential.created.filter((s) => s !== 'ALLOW:').length).toBeGreaterThan(100);
    expect(await run(true)).toEqual(sequential);
  });

  it('reports CRA values that match what is stored when one user transacts concurrently', async () => {
    const factor = { id: 'c', parameter: 'originCountry' as const, weight: 1, mapping: [{ values: ['IR'], riskLevel: 'VERY_HIGH' as const }, { values: ['DE'], riskLevel: 'VERY_LOW' as const }] };
    const { engine } = testEngine({ riskFactors: [factor] });
    const [a, b] = await Promise.all([
      engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'IR' } })),
      engine.createTransaction(tx({ timestamp: T0 + 1, originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'DE' } })),
    ]);
    const stored = (await engine.repositories.users.getUser('alice'))?.craScore;
    expect([a.riskScoreDetails?.originUserCraRiskScore, b.riskScoreDetails?.originUserCraRiskScore]).toContain(stored);
    expect(stored).toBe(50);
  });
});

describe('rule instances do not alias stored state', () => {
  it('a caller changing a returned instance or its nested defaults changes nothing stored', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-30' });
    (created.parameters.timeWindow as { granularity: string }).granularity = 'year';
    created.parameters.transactionsLimit = 1;
    const stored = await engine.getRuleInstance(created.id);
    expect(stored.parameters).toMatchObject({ transactionsLimit: 100, timeWindow: { granularity: 'day' } });
    expect((await testEngine().engine.getRule('R-30')).defaultParameters).toMatchObject({ timeWindow: { granularity: 'day' } });
  });

  it('an update of parameters or action keeps explicit per-risk-level maps (D-21)', async () => {
    const { engine } = testEngine();
    const levels = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const;
    const ri = await engine.createRuleInstance({
      ruleId: 'R-2',
      riskLevelParameters: Object.fromEntries(levels.map((l) => [l, { transactionAmountThreshold: { USD: l === 'VERY_HIGH' ? 1000 : 20000 } }])),
      riskLevelActions: Object.fromEntries(levels.map((l) => [l, l === 'VERY_HIGH' ? 'BLOCK' : 'FLAG'])),
    });
    const up = await engine.updateRuleInstance(ri.id, { parameters: { transactionAmountThreshold: { USD: 9000 } }, action: 'FLAG' });
    expect(up.parameters).toEqual({ transactionAmountThreshold: { USD: 9000 } });
    expect(up.riskLevelParameters.VERY_HIGH).toEqual({ transactionAmountThreshold: { USD: 1000 } });
    expect(up.riskLevelActions.VERY_HIGH).toBe('BLOCK');
  });

  it('keeps logicAggregationVariables (never dropped) and refuses an incomplete one with its path', async () => {
    const { engine } = testEngine();
    const e = await errorOf(() =>
      engine.createRuleInstance({ logic: { '==': [1, 1] }, logicAggregationVariables: [{ key: 'x' }] }),
    );
    expect(e.code).toBe('INVALID_LOGIC');
    expect(e.details[0]?.path.startsWith('/logicAggregationVariables/0')).toBe(true);
    expect(await engine.listRuleInstances()).toEqual([]);
    const variable = {
      key: 'x',
      aggregationFunc: 'COUNT',
      userDirection: 'SENDER',
      transactionDirection: 'SENDING',
      timeWindow: { start: { units: 1, granularity: 'day' }, end: { units: 0, granularity: 'now' } },
    };
    const created = await engine.createRuleInstance({ logic: { '>': [{ var: 'agg.x' }, 1] }, logicAggregationVariables: [variable] });
    expect(created.logicAggregationVariables).toEqual([variable]);
    expect((await engine.getRuleInstance(created.id)).logicAggregationVariables).toEqual([variable]);
  });
});

describe('users', () => {
  it('createUser keeps the CRA a transaction gave the user', async () => {
    const factor = { id: 'c', parameter: 'originCountry' as const, weight: 1, mapping: [{ values: ['IR'], riskLevel: 'VERY_HIGH' as const }] };
    const { engine } = testEngine({ riskFactors: [factor] });
    await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'IR' } }));
    const r = await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY });
    expect(r.riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
    expect((await engine.getUser('alice')).riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
  });
});

describe('reserved result fields', () => {
  const fields = ['status', 'executedRules', 'hitRules', 'riskScoreDetails'];
  for (const field of fields) {
    it(`rejects a transaction carrying "${field}" with 400 at /${field}, and an event patch carrying it`, async () => {
      const { engine } = testEngine();
      const e = await errorOf(() => engine.createTransaction(tx({ transactionId: 'r-1', [field]: { spoofed: true } })));
      expect(e.code).toBe('VALIDATION_FAILED');
      expect(e.details[0]).toMatchObject({ path: `/${field}`, code: 'reserved' });
      await expect(engine.getTransaction('r-1')).rejects.toMatchObject({ code: 'TRANSACTION_NOT_FOUND' });
      await engine.createTransaction(tx({ transactionId: 'r-2' }));
      const e2 = await errorOf(() =>
        engine.createTransactionEvent({ transactionId: 'r-2', timestamp: T0 + 1, transactionState: 'SENT', updatedTransactionAttributes: { [field]: 1 } }),
      );
      expect(e2.details[0]).toMatchObject({ path: `/updatedTransactionAttributes/${field}`, code: 'reserved' });
      expect((await engine.getTransaction('r-2')).transactionState).toBe('CREATED');
    });
  }
});
