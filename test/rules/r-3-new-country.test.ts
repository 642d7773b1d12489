import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine } from '../helpers.js';
import { engineWith, hits, send } from './kits/newness-fixtures.js';

describe('R-3 Transaction to or from a new country', () => {
  it('hits the sender for a new destination country once it has initialTransactions earlier sent transactions', async () => {
    const engine = await engineWith('R-3', 2);
    expect(hits(await engine.createTransaction(send(T0, 'FR')), 'R-3')).toEqual([]); // 0 earlier: too little history
    expect(hits(await engine.createTransaction(send(T0 + 1, 'FR')), 'R-3')).toEqual([]); // 1 earlier
    expect(hits(await engine.createTransaction(send(T0 + 2, 'FR')), 'R-3')).toEqual([]); // seen before
    const r = await engine.createTransaction(send(T0 + 3, 'NL'));
    expect(hits(r, 'R-3')).toContain('ORIGIN');
    expect(r.hitRules.find((h) => h.ruleId === 'R-3')?.ruleDescription).toContain('Sender transacted with NL for the first time after 3 earlier transactions.');
  });

  it('one earlier transaction short of initialTransactions does not hit (≥)', async () => {
    const engine = await engineWith('R-3', 3);
    await engine.createTransaction(send(T0, 'FR'));
    await engine.createTransaction(send(T0 + 1, 'FR'));
    expect(hits(await engine.createTransaction(send(T0 + 2, 'NL')), 'R-3')).toEqual([]);
  });

  it('the receiver side looks at the origin countries it received from', async () => {
    const engine = await engineWith('R-3', 1);
    await engine.createTransaction(send(T0, 'FR'));
    const r = await engine.createTransaction(
      send(T0 + 1, 'FR', 'EUR', { originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'PL' } }),
    );
    expect(hits(r, 'R-3')).toEqual(['DESTINATION']);
  });

  it('a late transaction only sees what happened before it', async () => {
    const engine = await engineWith('R-3', 1);
    await engine.createTransaction(send(T0 + DAY, 'FR'));
    await engine.createTransaction(send(T0 + 2 * DAY, 'NL'));
    // Happened first: no earlier transaction → not enough history.
    expect(hits(await engine.createTransaction(send(T0, 'NL')), 'R-3')).toEqual([]);
  });

  it('an event does not make the transaction its own history', async () => {
    const engine = await engineWith('R-3', 1);
    await engine.createTransaction(send(T0, 'FR'));
    const t = send(T0 + 1, 'NL');
    expect(hits(await engine.createTransaction(t), 'R-3')).toContain('ORIGIN');
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(hits(ev, 'R-3')).toContain('ORIGIN');
  });

  it('rejects a negative initialTransactions', async () => {
    const e = await errorOf(() => testEngine().engine.createRuleInstance({ ruleId: 'R-3', parameters: { initialTransactions: -1 } }));
    expect(e.details[0]?.path).toBe('/parameters/initialTransactions');
  });
});
