/** Evaluating one transaction against the active instances (src/engine/services/evaluate-transaction.ts), through the engine. */
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories, type Repositories } from '../../../src/index.js';
import { fixedClock, tx } from '../../helpers.js';

describe('createTransactionEvaluator', () => {
  describe('edge cases', () => {
    it('a failing user read while the instances are still being read is an error of the call, not an unhandled rejection', async () => {
      const memory = createMemoryRepositories();
      const repositories: Repositories = {
        ...memory,
        ruleInstances: {
          ...memory.ruleInstances,
          // A database adapter: the revision takes real time.
          getRevision: () => new Promise((resolve) => setTimeout(() => void memory.ruleInstances.getRevision().then(resolve), 20)),
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
  });
});
