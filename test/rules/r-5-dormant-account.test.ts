import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, tx } from '../helpers.js';

const hit = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-5').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

async function engineWith(parameters: Record<string, unknown> = {}) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId: 'R-5', parameters: { dormancyPeriodDays: 30, ...parameters } });
  return engine;
}

describe('R-5 Dormant account', () => {
  const rows = [
    { name: 'exactly the dormancy period later does not hit (strict >)', gap: 30 * DAY, expected: [] },
    { name: '1 ms more than the dormancy period hits', gap: 30 * DAY + 1, expected: ['ORIGIN'] },
    { name: 'well within the period does not hit', gap: 5 * DAY, expected: [] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(tx({ timestamp: T0 }));
      expect(hit(await engine.createTransaction(tx({ timestamp: T0 + row.gap })))).toEqual(row.expected);
    });
  }

  it('never hits a first transaction (a new user is not dormant)', async () => {
    const engine = await engineWith();
    expect(hit(await engine.createTransaction(tx({ timestamp: T0 })))).toEqual([]);
  });

  it("with checkDirection 'all', a received transaction ends the dormancy", async () => {
    const engine = await engineWith();
    await engine.createTransaction(tx({ timestamp: T0 }));
    await engine.createTransaction(tx({ timestamp: T0 + 20 * DAY, originUserId: 'carol', destinationUserId: 'alice' }));
    expect(hit(await engine.createTransaction(tx({ timestamp: T0 + 40 * DAY })))).toEqual([]);
  });

  it("with checkDirection 'sending', only sent transactions count", async () => {
    const engine = await engineWith({ checkDirection: 'sending' });
    await engine.createTransaction(tx({ timestamp: T0 }));
    await engine.createTransaction(tx({ timestamp: T0 + 20 * DAY, originUserId: 'carol', destinationUserId: 'alice' }));
    expect(hit(await engine.createTransaction(tx({ timestamp: T0 + 40 * DAY })))).toEqual(['ORIGIN']);
  });

  it('a late transaction compares with the previous one by timestamp, not by arrival', async () => {
    const engine = await engineWith();
    await engine.createTransaction(tx({ timestamp: T0 + 100 * DAY }));
    // Arrives later but happened long before: it has no earlier transaction → first, not dormant.
    expect(hit(await engine.createTransaction(tx({ timestamp: T0 })))).toEqual([]);
  });

  it('an event on the transaction does not treat the transaction as its own predecessor', async () => {
    const engine = await engineWith();
    await engine.createTransaction(tx({ timestamp: T0 }));
    const t = tx({ timestamp: T0 + 31 * DAY });
    expect(hit(await engine.createTransaction(t))).toEqual(['ORIGIN']);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 31 * DAY + 1, transactionState: 'SUCCESSFUL' });
    expect(hit(ev)).toEqual(['ORIGIN']);
  });

  it('describes the gap in whole days', async () => {
    const engine = await engineWith();
    await engine.createTransaction(tx({ timestamp: T0 }));
    const r = await engine.createTransaction(tx({ timestamp: T0 + 45 * DAY + 5 }));
    expect(r.hitRules[0]?.ruleDescription).toBe("Sender's previous transaction was 45 days earlier, more than the dormancy period of 30 days.");
  });

  it('rejects a zero dormancy period with INVALID_PARAMETERS at /parameters/dormancyPeriodDays', async () => {
    const { engine } = testEngine();
    const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-5', parameters: { dormancyPeriodDays: 0 } }));
    expect(e.code).toBe('INVALID_PARAMETERS');
    expect(e.details[0]?.path).toBe('/parameters/dormancyPeriodDays');
  });
});
