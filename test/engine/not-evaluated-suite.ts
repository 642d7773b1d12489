/**
 * "No silent false negatives" on any store: a rule that cannot convert an amount, or a custom rule
 * whose logic fails, is marked on its executed rule (`notEvaluated`), the result lists a
 * `RULE_NOT_EVALUATED` warning, both are stored with the result, and the engine counts them; with
 * `strict: true` such a transaction or event is refused (422) and nothing of it is stored. Run by
 * test/engine/not-evaluated.test.ts (memory) and test/postgres/not-evaluated.test.ts (PGlite).
 */
import { describe, expect, it } from 'vitest';
import { createEngine, type Engine, type EngineOptions, type Repositories } from '../../src/index.js';
import { errorOf, fixedClock, sequentialIds, T0, tx } from '../helpers.js';

const DAY_WINDOW = { units: 1, granularity: 'day', rollingBasis: true };
const BTC = { transactionAmount: 1, transactionCurrency: 'BTC', country: 'DE' };
const ORIGIN_AMOUNT = '/originAmountDetails/transactionAmount';

/** Runs the suite over repositories from `fresh` (a new, empty store per test). */
export function describeNotEvaluated(name: string, fresh: () => Promise<Repositories>): void {
  async function engineWith(options: EngineOptions = {}): Promise<Engine> {
    return createEngine({ repositories: await fresh(), clock: fixedClock(), ids: sequentialIds(), ...options });
  }

  describe(`rules not evaluated (${name})`, () => {
    it('a threshold rule without a rate for the amount is marked NO_RATE with the amount path, warned, stored and counted', async () => {
      const engine = await engineWith();
      const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
      const result = await engine.createTransaction(tx({ transactionId: 'btc-1', originAmountDetails: BTC }));
      const notEvaluated = { reason: 'NO_RATE', currency: 'BTC', to: 'EUR', path: ORIGIN_AMOUNT };
      expect(result.executedRules).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, ruleHit: false, notEvaluated })]);
      expect(result.hitRules).toEqual([]);
      expect(result.warnings).toEqual([
        { code: 'RULE_NOT_EVALUATED', ruleInstanceId: instance.id, notEvaluated, message: expect.stringContaining(instance.id) },
      ]);
      const stored = await engine.getTransaction('btc-1');
      expect(stored.executedRules[0]?.notEvaluated).toEqual(notEvaluated);
      expect(stored.warnings).toEqual(result.warnings);
      expect(engine.evaluationStats().notEvaluated).toMatchObject({ total: 1, byReason: { NO_RATE: 1 }, byInstance: { [instance.id]: 1 } });
      expect((await engine.getRuleInstance(instance.id)).runCount).toBe(1);
    });

    it('a rule that converted what it needed carries no mark and the result no warnings', async () => {
      const engine = await engineWith();
      await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
      const result = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 2000, transactionCurrency: 'USD' } }));
      expect(result.hitRules).toHaveLength(1);
      expect(result.executedRules[0]).not.toHaveProperty('notEvaluated');
      expect(result).not.toHaveProperty('warnings');
      expect(engine.evaluationStats().notEvaluated.total).toBe(0);
    });

    it('a volume rule whose sum would take the current amount without a rate into the base currency is marked', async () => {
      const engine = await engineWith();
      const instance = await engine.createRuleInstance({
        ruleId: 'R-69',
        parameters: { transactionVolumeThreshold: { USD: 10000 }, timeWindow: DAY_WINDOW, checkSender: 'sending', checkReceiver: 'none' },
      });
      const result = await engine.createTransaction(tx({ originAmountDetails: BTC, destinationAmountDetails: BTC }));
      expect(result.executedRules[0]).toMatchObject({
        ruleInstanceId: instance.id,
        ruleHit: false,
        notEvaluated: { reason: 'NO_RATE', currency: 'BTC', to: 'USD', path: ORIGIN_AMOUNT },
      });
      // The same rule on an amount with a rate: evaluated, nothing marked.
      const next = await engine.createTransaction(tx({ timestamp: T0 + 1, originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' } }));
      expect(next.executedRules[0]).not.toHaveProperty('notEvaluated');
    });

    it('a custom rule whose logic throws is marked LOGIC_ERROR', async () => {
      const engine = await engineWith();
      const instance = await engine.createRuleInstance({ logic: { '*': [] } });
      const result = await engine.createTransaction(tx());
      expect(result.executedRules[0]).toMatchObject({ ruleInstanceId: instance.id, ruleHit: false, notEvaluated: { reason: 'LOGIC_ERROR' } });
      expect(result.warnings?.map((w) => w.notEvaluated.reason)).toEqual(['LOGIC_ERROR']);
    });

    it('a custom rule past its work budget is marked LOGIC_WORK_BUDGET', async () => {
      const engine = await engineWith({ limits: { maxLogicWork: 1_000 } });
      await engine.createRuleInstance({ logic: { in: ['needle', { var: 'transaction.reference' }] } });
      const result = await engine.createTransaction(tx({ reference: `${'x'.repeat(4_000)}needle` }));
      expect(result.executedRules[0]?.notEvaluated).toEqual({ reason: 'LOGIC_WORK_BUDGET' });
    });

    it('strict: a transaction on which a live rule could not be evaluated is refused with 422 RULE_NOT_EVALUATED naming the amount, and nothing is stored', async () => {
      const engine = await engineWith({ strict: true });
      const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } }, alertCreationOnHit: true });
      const e = await errorOf(() => engine.createTransaction(tx({ transactionId: 'btc-1', originAmountDetails: BTC })));
      expect(e).toMatchObject({ code: 'RULE_NOT_EVALUATED', status: 422, details: [{ path: ORIGIN_AMOUNT, code: 'not-evaluated' }] });
      expect((await errorOf(() => engine.getTransaction('btc-1'))).code).toBe('TRANSACTION_NOT_FOUND');
      expect((await engine.getRuleInstance(instance.id)).runCount).toBe(0);
      expect((await engine.verifyDecisionLog()).count).toBe(0);
      expect(await engine.listAlerts()).toEqual([]);
      expect(engine.evaluationStats().notEvaluated.total).toBe(1);
      // Nothing of it was kept: the same id in a currency with a rate is a new transaction, not a conflict.
      const accepted = await engine.createTransaction(
        tx({ transactionId: 'btc-1', originAmountDetails: { transactionAmount: 2000, transactionCurrency: 'EUR' } }),
      );
      expect(accepted.hitRules.map((r) => r.ruleInstanceId)).toEqual([instance.id]);
    });

    it('strict: an event that makes a rule unable to convert is refused and the transaction stays as it was', async () => {
      const engine = await engineWith({ strict: true });
      await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } } });
      await engine.createTransaction(tx({ transactionId: 'moves' }));
      const e = await errorOf(() =>
        engine.createTransactionEvent({
          transactionId: 'moves',
          eventId: 'ev-1',
          timestamp: T0 + 1,
          transactionState: 'SUCCESSFUL',
          updatedTransactionAttributes: { originAmountDetails: BTC },
        }),
      );
      expect(e.code).toBe('RULE_NOT_EVALUATED');
      expect((await errorOf(() => engine.getTransactionEvent('ev-1'))).code).toBe('EVENT_NOT_FOUND');
      const stored = await engine.getTransaction('moves');
      expect(stored.transactionState).toBe('CREATED');
      expect(stored.originAmountDetails?.transactionCurrency).toBe('EUR');
    });

    it('strict: a shadow instance not evaluated does not refuse; its warning says isShadow', async () => {
      const engine = await engineWith({ strict: true });
      const instance = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 1000 } }, mode: 'SHADOW' });
      const result = await engine.createTransaction(tx({ originAmountDetails: BTC }));
      expect(result.status).toBe('ALLOW');
      expect(result.warnings).toEqual([expect.objectContaining({ ruleInstanceId: instance.id, isShadow: true })]);
    });
  });
}
