import { describe, expect, it } from 'vitest';
import { testEngine } from '../../helpers.js';

describe('createRuleInstance: returned instances do not alias stored state', () => {
  it('a caller changing a returned instance or its nested defaults changes nothing stored', async () => {
    const { engine } = testEngine();
    const created = await engine.createRuleInstance({ ruleId: 'R-30' });
    (created.parameters.timeWindow as { granularity: string }).granularity = 'year';
    created.parameters.transactionsLimit = 1;
    const stored = await engine.getRuleInstance(created.id);
    expect(stored.parameters).toMatchObject({ transactionsLimit: 100, timeWindow: { granularity: 'day' } });
    expect((await testEngine().engine.getRule('R-30')).defaultParameters).toMatchObject({ timeWindow: { granularity: 'day' } });
  });
});
