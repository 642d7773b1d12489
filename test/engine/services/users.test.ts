import { describe, expect, it } from 'vitest';
import { DAY, T0, testEngine, tx } from '../../helpers.js';

describe('createUser', () => {
  it('keeps the CRA a transaction gave the user', async () => {
    const factor = { id: 'c', parameter: 'originCountry' as const, weight: 1, mapping: [{ values: ['IR'], riskLevel: 'VERY_HIGH' as const }] };
    const { engine } = testEngine({ riskFactors: [factor] });
    await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'IR' } }));
    const r = await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY });
    expect(r.riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
    expect((await engine.getUser('alice')).riskScoreDetails).toEqual({ craRiskScore: 90, craRiskLevel: 'VERY_HIGH' });
  });
});
