/** Building the stored instance from a create or update request (src/engine/instances/build-rule-instance.ts), through the engine. */
import { describe, expect, it } from 'vitest';
import { errorOf, testEngine, type RiskLevel } from '../../helpers.js';

describe('buildRuleInstance: update semantics', () => {
  it('an update of parameters or action keeps explicit per-risk-level maps', async () => {
    const { engine } = testEngine();
    const levels = ['VERY_LOW', 'LOW', 'MEDIUM', 'HIGH', 'VERY_HIGH'] as const;
    const ri = await engine.createRuleInstance({
      ruleId: 'R-2',
      riskLevelParameters: Object.fromEntries(levels.map((l) => [l, { transactionAmountThreshold: { USD: l === 'VERY_HIGH' ? 1000 : 20000 } }])) as Record<
        RiskLevel,
        { transactionAmountThreshold: { USD: number } }
      >,
      riskLevelActions: Object.fromEntries(levels.map((l) => [l, l === 'VERY_HIGH' ? 'BLOCK' : 'FLAG'])) as Record<RiskLevel, 'BLOCK' | 'FLAG'>,
    });
    const up = await engine.updateRuleInstance(ri.id, { parameters: { transactionAmountThreshold: { USD: 9000 } }, action: 'FLAG' });
    expect(up.parameters).toEqual({ transactionAmountThreshold: { USD: 9000 } });
    expect(up.riskLevelParameters.VERY_HIGH).toEqual({ transactionAmountThreshold: { USD: 1000 } });
    expect(up.riskLevelActions.VERY_HIGH).toBe('BLOCK');
  });
});

describe('buildRuleInstance: custom logic with aggregation variables', () => {
  it('keeps logicAggregationVariables (never dropped) and refuses an incomplete one with its path', async () => {
    const { engine } = testEngine();
    const e = await errorOf(() => engine.createRuleInstance({ logic: { '==': [1, 1] }, logicAggregationVariables: [{ key: 'x' }] }));
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
