/** A stored instance made ready to run (src/engine/instances/prepare-instance.ts), through the engine. */
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories } from '../../../src/index.js';
import { fixedClock, tx } from '../../helpers.js';

describe('prepareInstance', () => {
  describe('edge cases', () => {
    it("never freezes the repository's own instance objects (an adapter may change them)", async () => {
      const repositories = createMemoryRepositories();
      const engine = createEngine({ repositories, clock: fixedClock() });
      const created = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 100 } } });
      const result = await engine.createTransaction(tx({ transactionId: 't-1', originAmountDetails: { transactionAmount: 500, transactionCurrency: 'EUR' } }));
      expect(result.status).toBe('SUSPEND');
      const stored = await repositories.ruleInstances.getStoredRuleInstance(created.id);
      expect(Object.isFrozen(stored?.instance.parameters)).toBe(false);
      const listed = await repositories.ruleInstances.listRuleInstances();
      expect(Object.isFrozen(listed[0]?.parameters)).toBe(false);
    });
  });
});
