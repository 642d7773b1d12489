import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { ACTION_SEVERITY, isTxmonError, type RuleAction } from '../../src/index.js';
import { consumerUserArbitrary, eventSequenceArbitrary, ruleInstanceRequestArbitrary, transactionsArbitrary } from '../arbitraries/index.js';
import { testEngine } from '../helpers.js';

/** Laws of the engine, driven by the same arbitraries `txmon/testing` ships to hosts. */
describe('properties', () => {
  test.prop(
    [fc.array(ruleInstanceRequestArbitrary(), { maxLength: 6 }), fc.array(consumerUserArbitrary(), { maxLength: 4 }), transactionsArbitrary({ maxLength: 25 })],
    {
      numRuns: 40,
    },
  )('any valid configuration and stream is accepted; hitRules ⊆ executedRules; status = most severe live hit', async (requests, users, transactions) => {
    const { engine } = testEngine();
    for (const r of requests) await engine.createRuleInstance(r);
    for (const u of users) await engine.createUser(u);
    const shadow = new Set((await engine.listRuleInstances()).filter((i) => i.mode === 'SHADOW').map((i) => i.id));
    for (const t of transactions) {
      const r = await engine.createTransaction(t);
      const executed = new Map(r.executedRules.map((e) => [e.ruleInstanceId, e]));
      let expected: RuleAction = 'ALLOW';
      for (const h of r.hitRules) {
        expect(executed.get(h.ruleInstanceId)?.ruleHit).toBe(true);
        if (!shadow.has(h.ruleInstanceId) && ACTION_SEVERITY[h.ruleAction] > ACTION_SEVERITY[expected]) expected = h.ruleAction;
      }
      expect(r.executedRules.filter((e) => e.ruleHit)).toHaveLength(r.hitRules.length);
      expect(r.status).toBe(expected);
    }
  });

  test.prop([eventSequenceArbitrary(), fc.nat()], { numRuns: 60 })(
    'the events of a valid sequence, in timestamp order, are all accepted, and a replay of each changes nothing',
    async ({ transaction, events }, pick) => {
      const { engine } = testEngine();
      const ri = await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 0 } });
      await engine.createTransaction(transaction);
      const responses = [];
      for (const e of events) responses.push(await engine.createTransactionEvent(e));
      const before = await engine.getRuleInstance(ri.id);
      if (events.length > 0) {
        const i = pick % events.length;
        const event = events[i]!;
        if (event.eventId !== undefined) {
          const again = await engine.createTransactionEvent(structuredClone(event));
          expect(again).toEqual(responses[i]);
        }
      }
      const after = await engine.getRuleInstance(ri.id);
      expect([after.runCount, after.hitCount]).toEqual([before.runCount, before.hitCount]);
      const last = events.at(-1);
      if (last) expect((await engine.getTransaction(transaction.transactionId)).transactionState).toBe(last.transactionState);
    },
  );

  test.prop([eventSequenceArbitrary(), fc.func(fc.integer())], { numRuns: 60 })(
    'any arrival order whose events are all accepted ends in the same transaction as timestamp order (docs/guarantees.md#arrival-order)',
    async ({ transaction, events }, order) => {
      const inOrder = testEngine().engine;
      await inOrder.createTransaction(transaction);
      for (const e of events) await inOrder.createTransactionEvent(e);
      const expected = await inOrder.getTransaction(transaction.transactionId);

      const shuffled = [...events].sort((a, b) => order(a.timestamp) - order(b.timestamp));
      const other = testEngine().engine;
      await other.createTransaction(transaction);
      let allAccepted = true;
      for (const e of shuffled) {
        try {
          await other.createTransactionEvent(e);
        } catch (error) {
          // A prefix of the history may break the lifecycle on its own (a 409,
          // docs/wire-format.md#event-order); that is allowed, and then the two runs legitimately
          // differ.
          if (!isTxmonError(error) || error.status !== 409) throw error;
          allAccepted = false;
        }
      }
      if (allAccepted) expect(await other.getTransaction(transaction.transactionId)).toEqual(expected);
    },
  );
});
