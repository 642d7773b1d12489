import { describe, expect, it } from 'vitest';
import { HOUR, T0, errorOf, testEngine, tx } from '../helpers.js';

const hit = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-126').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

async function engineWith(parameters: Record<string, unknown> = {}) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId: 'R-126', parameters: { transactionVolumeThreshold: { EUR: 1000 }, ...parameters } });
  return engine;
}

const eur = (amount: number, at: number, extra: Record<string, unknown> = {}) =>
  tx({ timestamp: at, originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' }, destinationAmountDetails: undefined, ...extra });

describe('R-126 High volume between the same parties', () => {
  const rows = [
    { name: 'exactly at the threshold hits (≥), both sides', amounts: [600, 400], expected: ['ORIGIN', 'DESTINATION'] },
    { name: 'one minor unit below does not hit', amounts: [600, 399.99], expected: [] },
    { name: 'exact decimals: 0.1 + 0.2 reaches 0.3', amounts: [0.1, 0.2], threshold: 0.3, expected: ['ORIGIN', 'DESTINATION'] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.threshold ? { transactionVolumeThreshold: { EUR: row.threshold } } : {});
      let last: string[] = [];
      for (const [i, a] of row.amounts.entries()) last = hit(await engine.createTransaction(eur(a, T0 + i)));
      expect(last).toEqual(row.expected);
    });
  }

  it('only counts the same ordered pair inside the rolling hour (start inclusive)', async () => {
    const engine = await engineWith();
    await engine.createTransaction(eur(500, T0 - HOUR)); // exactly at the window start: counts
    await engine.createTransaction(eur(5000, T0 - HOUR - 1)); // 1 ms before: out
    await engine.createTransaction(eur(5000, T0 - 5, { originUserId: 'bob', destinationUserId: 'alice' })); // reverse pair
    expect(hit(await engine.createTransaction(eur(500, T0)))).toEqual(['ORIGIN', 'DESTINATION']);
    expect(hit(await engine.createTransaction(eur(1, T0 + HOUR + 1)))).toEqual([]);
  });

  it('with transactionsLimit, the volume must be spread over more than that many transactions', async () => {
    const engine = await engineWith({ transactionsLimit: 2 });
    expect(hit(await engine.createTransaction(eur(2000, T0)))).toEqual([]);
    expect(hit(await engine.createTransaction(eur(1, T0 + 1)))).toEqual([]);
    expect(hit(await engine.createTransaction(eur(1, T0 + 2)))).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('an amount update by event replaces the contribution', async () => {
    const engine = await engineWith();
    const t = eur(900, T0);
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 1000, transactionCurrency: 'EUR' } },
    });
    expect(hit(ev)).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('rejects an empty threshold map with INVALID_PARAMETERS', async () => {
    const e = await errorOf(() => testEngine().engine.createRuleInstance({ ruleId: 'R-126', parameters: { transactionVolumeThreshold: {} } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details[0]?.path).toBe('/parameters/transactionVolumeThreshold');
  });
});
