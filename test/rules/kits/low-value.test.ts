import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toScaled } from '../../../src/domain/money.js';
import { HOUR, SECOND, T0, testEngine, tx } from '../../helpers.js';
import { engineFor, hitsOf } from './low-value-suite.js';

describe('properties', () => {
  const AMOUNTS = [0, 989.99, 990, 995, 1000, 1000.01, 5000];
  const step = fc.record({
    sender: fc.constantFrom('alice', 'bob', 'carol'),
    receiver: fc.constantFrom('alice', 'bob', 'carol'),
    origin: fc.constantFrom(...AMOUNTS),
    destination: fc.constantFrom(...AMOUNTS),
    // Mostly forward in time, sometimes equal or earlier (late arrivals).
    offset: fc.integer({ min: -3, max: 10 }),
  });
  // Offsets are in seconds; `windowSeconds` (or none: the whole history) is the optional timeWindow.
  test.prop([fc.array(step, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 4 }), fc.option(fc.integer({ min: 1, max: 20 }))], { numRuns: 60 })(
    "hits exactly when the user's last N transactions of the direction (by timestamp, then id; this one included) are all in range and inside the window, by brute force",
    async (steps, count, windowSeconds) => {
      const engine = engineFor();
      const timeWindow = windowSeconds === null ? {} : { timeWindow: { units: windowSeconds, granularity: 'second' } };
      const parameters = { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: count, ...timeWindow };
      await engine.createRuleInstance({ ruleId: 'R-7', parameters });
      await engine.createRuleInstance({ ruleId: 'R-8', parameters });
      const sent: { id: string; at: number; user: string; amount: number }[] = [];
      const received: typeof sent = [];
      const [MIN, MAX] = [toScaled(990), toScaled(1000)];
      const low = (amount: number) => toScaled(amount) >= MIN && toScaled(amount) <= MAX;
      const lastAllLow = (history: typeof sent, current: (typeof sent)[number]) => {
        const before = history
          .filter((h) => h.user === current.user && h.at <= current.at)
          .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
        const last = [...before.slice(Math.max(0, before.length - (count - 1))), current];
        const inside = (h: (typeof sent)[number]) => windowSeconds === null || h.at >= current.at - windowSeconds * SECOND;
        return last.length === count && last.every((h) => low(h.amount) && inside(h));
      };
      let at = T0;
      for (const [i, st] of steps.entries()) {
        at += st.offset * SECOND;
        // Zero-padded ids keep string order equal to arrival order.
        const id = `p-${String(i).padStart(3, '0')}`;
        const r = await engine.createTransaction({
          type: 'TRANSFER',
          transactionId: id,
          timestamp: at,
          originUserId: st.sender,
          destinationUserId: st.receiver,
          originAmountDetails: { transactionAmount: st.origin, transactionCurrency: 'USD' },
          destinationAmountDetails: { transactionAmount: st.destination, transactionCurrency: 'USD' },
        });
        const out = { id, at, user: st.sender, amount: st.origin };
        const inc = { id, at, user: st.receiver, amount: st.destination };
        expect(hitsOf(r, 'R-8')).toEqual(lastAllLow(sent, out) ? ['ORIGIN'] : []);
        expect(hitsOf(r, 'R-7')).toEqual(lastAllLow(received, inc) ? ['DESTINATION'] : []);
        sent.push(out);
        received.push(inc);
      }
    },
  );
});

const card = { method: 'CARD', cardFingerprint: 'fp-1' };
const iban = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
const usd = (amount: number) => ({ transactionAmount: amount, transactionCurrency: 'USD' });

describe('defineLowValueRule', () => {
  it('an earlier amount without a rate breaks the run (no hit)', async () => {
    const { engine } = testEngine({ rates: { rate: (from, to) => (from === to ? '1' : from === 'XAF' || to === 'XAF' ? null : '1') } });
    await engine.createRuleInstance({ ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 2 } });
    await engine.createTransaction(tx({ timestamp: T0 - HOUR, originAmountDetails: { transactionAmount: 995, transactionCurrency: 'XAF' } }));
    const result = await engine.createTransaction(tx({ timestamp: T0, originAmountDetails: { transactionAmount: 995, transactionCurrency: 'USD' } }));
    expect(hitsOf(result, 'R-8')).toEqual([]);
  });

  describe('edge cases', () => {
    it('a current transaction that fails the historical filters is not one of the "last N"', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-8',
        parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 3 },
        filters: { paymentMethodsHistorical: ['CARD'] },
      });
      await engine.createTransaction(
        tx({ timestamp: T0 - 2 * HOUR, originPaymentDetails: card, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }),
      );
      await engine.createTransaction(
        tx({ timestamp: T0 - HOUR, originPaymentDetails: card, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }),
      );
      // Only 2 matching (CARD) transactions, the current IBAN one does not match: fewer than 3.
      const result = await engine.createTransaction(
        tx({ timestamp: T0, originPaymentDetails: iban, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }),
      );
      expect(hitsOf(result, 'R-8')).toEqual([]);
    });
  });
});
