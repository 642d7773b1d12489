import { test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { computeTransactionRisk, type RiskFactor } from '../../../src/engine/pipeline/risk.js';
import { createFixedRateProvider } from '../../../src/domain/money.js';
import type { Transaction } from '../../../src/domain/index.js';
import { transactionsArbitrary } from '../../arbitraries/index.js';
import { DAY, T0, errorOf, testEngine, tx, type RiskLevel } from '../../helpers.js';

const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };

const COUNTRY: RiskFactor = {
  id: 'origin-country',
  parameter: 'originCountry',
  weight: 2,
  mapping: [
    { values: ['IR', 'KP'], riskLevel: 'VERY_HIGH' },
    { values: ['DE', 'FR'], riskLevel: 'VERY_LOW' },
  ],
  defaultRiskLevel: 'MEDIUM',
};
const AMOUNT: RiskFactor = {
  id: 'origin-amount',
  parameter: 'originAmount',
  weight: 1,
  mapping: [
    { min: 0, max: 1000, currency: 'EUR', riskLevel: 'VERY_LOW' },
    { min: 1000, max: 10000, currency: 'EUR', riskLevel: 'MEDIUM' },
    { min: 10000, currency: 'EUR', riskLevel: 'VERY_HIGH' },
  ],
};

const base = (overrides: Partial<Transaction> = {}): Transaction => ({ type: 'TRANSFER', transactionId: 't', timestamp: T0, ...overrides }) as Transaction;

describe('computeTransactionRisk', () => {
  const context = { money, originUser: null, destinationUser: null };
  const rows = [
    {
      name: 'weighted average of two factors',
      t: base({ originAmountDetails: { transactionAmount: 500, transactionCurrency: 'EUR', country: 'IR' } }),
      expected: { trsScore: (90 * 2 + 10 * 1) / 3, trsRiskLevel: 'HIGH' },
    },
    {
      name: 'an unmapped value gets the default level',
      t: base({ originAmountDetails: { transactionAmount: 500, transactionCurrency: 'EUR', country: 'US' } }),
      expected: { trsScore: (50 * 2 + 10) / 3, trsRiskLevel: 'LOW' },
    },
    {
      name: 'amount exactly at a range minimum belongs to that range (min inclusive)',
      t: base({ originAmountDetails: { transactionAmount: 10000, transactionCurrency: 'EUR' } }),
      expected: { trsScore: 90, trsRiskLevel: 'VERY_HIGH' },
    },
    {
      name: 'one minor unit below the maximum stays in the lower range (max exclusive)',
      t: base({ originAmountDetails: { transactionAmount: 9999.99, transactionCurrency: 'EUR' } }),
      expected: { trsScore: 50, trsRiskLevel: 'MEDIUM' },
    },
    {
      name: 'an amount in another currency is converted into the range currency',
      t: base({ originAmountDetails: { transactionAmount: 1000, transactionCurrency: 'USD' } }),
      // 1000 USD = 965.81 EUR → VERY_LOW
      expected: { trsScore: 10, trsRiskLevel: 'VERY_LOW' },
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const r = computeTransactionRisk(row.t, [COUNTRY, AMOUNT], context);
      expect(r?.trsRiskLevel).toBe(row.expected.trsRiskLevel);
      expect(r?.trsScore).toBeCloseTo(row.expected.trsScore, 2);
    });
  }

  it('skips factors whose value the transaction lacks, and is null when none applies', () => {
    expect(computeTransactionRisk(base(), [COUNTRY, AMOUNT], context)).toBeNull();
  });

  it('reads the user age on the platform from the profile', () => {
    const age: RiskFactor = {
      id: 'age',
      parameter: 'originUserAgeOnPlatformDays',
      weight: 1,
      mapping: [
        { max: 30, riskLevel: 'HIGH' },
        { min: 30, riskLevel: 'LOW' },
      ],
    };
    const user = (created: number) => ({ userId: 'u', type: 'CONSUMER' as const, profile: { createdTimestamp: created }, riskLevel: null, craScore: null });
    const t = base({ originUserId: 'u' });
    expect(computeTransactionRisk(t, [age], { ...context, originUser: user(T0 - 29 * DAY) })?.trsRiskLevel).toBe('HIGH');
    expect(computeTransactionRisk(t, [age], { ...context, originUser: user(T0 - 30 * DAY) })?.trsRiskLevel).toBe('LOW');
  });
});

describe('createEngine with risk factors', () => {
  it('reports TRS and CRA on every result; the CRA moves on creation only', async () => {
    const { engine } = testEngine({ riskFactors: [COUNTRY] });
    const first = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR', country: 'IR' } }));
    expect(first.riskScoreDetails).toEqual({
      trsScore: 90,
      trsRiskLevel: 'VERY_HIGH',
      originUserCraRiskScore: 90,
      originUserCraRiskLevel: 'VERY_HIGH',
      // bob: the destination's CRA moves with the same TRS.
      destinationUserCraRiskScore: 90,
      destinationUserCraRiskLevel: 'VERY_HIGH',
    });
    const second = await engine.createTransaction(
      tx({ timestamp: T0 + 1, originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR', country: 'DE' } }),
    );
    expect(second.riskScoreDetails).toMatchObject({ trsScore: 10, originUserCraRiskScore: 50, originUserCraRiskLevel: 'MEDIUM' });
    // An event re-scores the transaction but reports the CRA without moving it again.
    const ev = await engine.createTransactionEvent({ transactionId: second.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(ev.riskScoreDetails).toMatchObject({ trsScore: 10, originUserCraRiskScore: 50 });
    const stored = await engine.repositories.users.getUser('alice');
    expect([stored?.craScore, stored?.craRiskLevel]).toEqual([50, 'MEDIUM']);
  });

  it('keeps the manual riskLevel of a user (CRA locked)', async () => {
    const { engine } = testEngine({ riskFactors: [COUNTRY] });
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, riskLevel: 'LOW' });
    const r = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 5, transactionCurrency: 'EUR', country: 'IR' } }));
    expect(r.riskScoreDetails).toMatchObject({ trsScore: 90, originUserCraRiskScore: 30, originUserCraRiskLevel: 'LOW' });
    expect((await engine.repositories.users.getUser('alice'))?.craScore).toBeNull();
  });

  it('selects instance parameters by the derived CRA level', async () => {
    const { engine } = testEngine({ riskFactors: [COUNTRY], defaultRiskLevel: 'VERY_LOW' });
    const thresholds = { VERY_LOW: 50000, LOW: 50000, MEDIUM: 50000, HIGH: 50000, VERY_HIGH: 100 };
    await engine.createRuleInstance({
      ruleId: 'R-2',
      riskLevelParameters: Object.fromEntries(Object.entries(thresholds).map(([l, v]) => [l, { transactionAmountThreshold: { EUR: v } }])) as Record<
        RiskLevel,
        { transactionAmountThreshold: { EUR: number } }
      >,
    });
    const amount = { transactionAmount: 1000, transactionCurrency: 'EUR' };
    // No CRA yet: the default level VERY_LOW applies (threshold 50000).
    expect((await engine.createTransaction(tx({ originAmountDetails: { ...amount, country: 'IR' } }))).status).toBe('ALLOW');
    // That transaction moved alice's CRA to 90 (VERY_HIGH): threshold 100 now.
    expect((await engine.createTransaction(tx({ timestamp: T0 + 1, originAmountDetails: { ...amount, country: 'IR' } }))).status).toBe('SUSPEND');
  });

  it('has no riskScoreDetails without factors and without user risk', async () => {
    const { engine } = testEngine();
    expect((await engine.createTransaction(tx())).riskScoreDetails).toBeUndefined();
  });

  it('rejects invalid risk configuration with INVALID_CONFIGURATION', async () => {
    const bad = [
      { riskFactors: [{ ...COUNTRY, weight: 0 }] },
      { riskFactors: [{ ...COUNTRY, parameter: 'shoeSize' }] },
      { riskFactors: [COUNTRY, COUNTRY] },
      { riskBands: [0, 20, 20, 60, 80, 100] },
    ];
    for (const options of bad) {
      const e = await errorOf(async () => testEngine(options as never));
      expect(e.code).toBe('INVALID_CONFIGURATION');
    }
  });
});

describe('properties', () => {
  test.prop([transactionsArbitrary({ maxLength: 20 })], { numRuns: 40 })(
    'shadow instances never change risk scores or user CRA (docs/guarantees.md#shadow-instances)',
    async (transactions) => {
      const live = testEngine({ riskFactors: [COUNTRY, AMOUNT] }).engine;
      const withShadow = testEngine({ riskFactors: [COUNTRY, AMOUNT] }).engine;
      await withShadow.createRuleInstance({ ruleId: 'R-2', mode: 'SHADOW', action: 'BLOCK', parameters: { transactionAmountThreshold: { EUR: 1 } } });
      await withShadow.createRuleInstance({ ruleId: 'R-14', mode: 'SHADOW', triggersOnHit: { userStateDetails: { state: 'BLOCKED', reason: 'x' } } });
      for (const t of transactions) {
        const a = await live.createTransaction(t);
        const b = await withShadow.createTransaction(t);
        expect(b.riskScoreDetails).toEqual(a.riskScoreDetails);
        expect(b.status).toBe(a.status);
      }
      for (const t of transactions) {
        for (const id of [t.originUserId, t.destinationUserId]) {
          if (!id) continue;
          expect(await withShadow.repositories.users.getUser(id)).toEqual(await live.repositories.users.getUser(id));
        }
      }
    },
  );
});
