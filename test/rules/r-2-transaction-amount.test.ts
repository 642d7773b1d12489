import { describe, expect, it } from 'vitest';
import type { RateProvider } from '../../src/index.js';
import { T0, testEngine, tx } from '../helpers.js';
import { fc, test as fcTest } from '@fast-check/vitest';
import { deepFreeze } from '../../src/domain/json.js';
import { formatMoney, scaledToDecimal, toScaled } from '../../src/domain/money.js';
import { r2TransactionAmount } from '../../src/rules/library/r-2-transaction-amount.js';
import { resolveThreshold } from '../../src/rules/parameters.js';
import type { RuleHit } from '../../src/rules/types.js';
import { CURRENCIES, money, thresholdsArb } from './threshold-fixtures.js';

/**
 * R-2 boundary table, through the engine (fixed clock, sequential ids). Conversion rows use a
 * hand-made rate provider so the boundaries are exact and independent of the default table.
 */

/** GBP → EUR at exactly 1.25, GBP → CHF at 2; nothing else (USD and others have no rate). */
const rates: RateProvider = {
  rate(from, to) {
    if (from === to) return '1';
    if (from === 'GBP' && to === 'EUR') return '1.25';
    if (from === 'GBP' && to === 'CHF') return '2';
    return null;
  },
};

type Amount = { transactionAmount: number; transactionCurrency: string } | undefined;

interface Row {
  name: string;
  thresholds: Record<string, number>;
  origin: Amount;
  destination?: Amount;
  hit: boolean;
}

const rows: Row[] = [
  { name: 'exactly at the threshold hits (≥)', thresholds: { EUR: 10000 }, origin: { transactionAmount: 10000, transactionCurrency: 'EUR' }, hit: true },
  { name: '0.01 below the threshold does not hit', thresholds: { EUR: 10000 }, origin: { transactionAmount: 9999.99, transactionCurrency: 'EUR' }, hit: false },
  { name: '0.01 above the threshold hits', thresholds: { EUR: 10000 }, origin: { transactionAmount: 10000.01, transactionCurrency: 'EUR' }, hit: true },
  {
    name: 'a fractional threshold is compared exactly (0.3 vs 0.3)',
    thresholds: { EUR: 0.3 },
    origin: { transactionAmount: 0.3, transactionCurrency: 'EUR' },
    hit: true,
  },
  { name: 'a zero threshold hits a zero amount', thresholds: { EUR: 0 }, origin: { transactionAmount: 0, transactionCurrency: 'EUR' }, hit: true },
  {
    name: 'a listed currency is compared in its own threshold, not converted',
    thresholds: { EUR: 10000, GBP: 500 },
    origin: { transactionAmount: 500, transactionCurrency: 'GBP' },
    hit: true,
  },
  {
    name: 'an unlisted currency converted into the first listed one reaches it exactly (8000 GBP × 1.25 = 10000 EUR)',
    thresholds: { EUR: 10000 },
    origin: { transactionAmount: 8000, transactionCurrency: 'GBP' },
    hit: true,
  },
  {
    name: 'an unlisted currency converted just below the first listed threshold does not hit (7999.99 GBP → 9999.9875 EUR)',
    thresholds: { EUR: 10000 },
    origin: { transactionAmount: 7999.99, transactionCurrency: 'GBP' },
    hit: false,
  },
  {
    name: 'conversion goes to the FIRST listed currency only (100 GBP = 125 EUR < 10000, though 200 CHF > 1)',
    thresholds: { EUR: 10000, CHF: 1 },
    origin: { transactionAmount: 100, transactionCurrency: 'GBP' },
    hit: false,
  },
  {
    name: 'a currency without a rate to the first listed currency cannot decide and does not hit',
    thresholds: { EUR: 1 },
    origin: { transactionAmount: 1_000_000, transactionCurrency: 'USD' },
    hit: false,
  },
  {
    name: 'no originAmountDetails does not hit, even with a huge destination amount',
    thresholds: { EUR: 10 },
    origin: undefined,
    destination: { transactionAmount: 1_000_000, transactionCurrency: 'EUR' },
    hit: false,
  },
  {
    name: 'only the origin amount counts (origin below, destination above)',
    thresholds: { EUR: 10000 },
    origin: { transactionAmount: 9999.99, transactionCurrency: 'EUR' },
    destination: { transactionAmount: 20000, transactionCurrency: 'EUR' },
    hit: false,
  },
];

describe('R-2 transaction amount too high', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine({ rates });
      const ri = await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: row.thresholds } });
      const r = await engine.createTransaction(tx({ originAmountDetails: row.origin, destinationAmountDetails: row.destination }));
      expect(r.executedRules).toHaveLength(1);
      expect(r.executedRules[0]).toMatchObject({ ruleInstanceId: ri.id, ruleId: 'R-2', ruleHit: row.hit, ruleAction: 'SUSPEND' });
      expect(r.hitRules).toHaveLength(row.hit ? 1 : 0);
      expect(r.status).toBe(row.hit ? 'SUSPEND' : 'ALLOW');
      if (row.hit) expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN', 'DESTINATION']);
    });
  }

  it('renders the amount and the threshold it was compared with into the description', async () => {
    const { engine } = testEngine({ rates });
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
    const r = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 8000, transactionCurrency: 'GBP' } }));
    expect(r.hitRules[0]?.ruleDescription).toContain('8000.00 GBP');
    expect(r.hitRules[0]?.ruleDescription).toContain('10000.00 EUR');
  });

  it('converts EUR into the default USD threshold with the default rate table', async () => {
    // Default table: 1 USD = 0.965810 EUR, so the default 10000 USD threshold is ≈ 9658.10 EUR:
    // 9000 EUR (≈ 9318 USD) stays below it, 9700 EUR (≈ 10043 USD) is above it.
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-2' });
    const below = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 9000, transactionCurrency: 'EUR' } }));
    const above = await engine.createTransaction(tx({ originAmountDetails: { transactionAmount: 9700, transactionCurrency: 'EUR' } }));
    expect([below.status, above.status]).toEqual(['ALLOW', 'SUSPEND']);
  });

  it('re-evaluates on an event that raises the origin amount over the threshold', async () => {
    const { engine } = testEngine({ rates });
    await engine.createRuleInstance({ ruleId: 'R-2', parameters: { transactionAmountThreshold: { EUR: 10000 } } });
    const t = tx({ originAmountDetails: { transactionAmount: 9999.99, transactionCurrency: 'EUR' } });
    expect((await engine.createTransaction(t)).status).toBe('ALLOW');
    const r = await engine.createTransactionEvent({
      transactionId: t.transactionId,
      timestamp: T0 + 1,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 10000, transactionCurrency: 'EUR' } },
    });
    expect(r.status).toBe('SUSPEND');
  });
});

/** A reference R-2: resolve the threshold, then compare. */
function referenceR2(
  transaction: { originAmountDetails?: { transactionAmount: number; transactionCurrency: string }; timestamp: number },
  thresholds: Record<string, number>,
  m: typeof money,
): RuleHit[] {
  const details = transaction.originAmountDetails;
  if (!details) return [];
  const resolved = resolveThreshold(thresholds, toScaled(details.transactionAmount), details.transactionCurrency, m, transaction.timestamp);
  if (!resolved || resolved.amount < resolved.threshold) return [];
  const vars = {
    amount: formatMoney(toScaled(details.transactionAmount), details.transactionCurrency),
    threshold: formatMoney(resolved.threshold, resolved.currency),
  };
  // The evidence: the compared amount and threshold in the threshold's currency, and the amount as
  // sent when it was converted.
  const converted = details.transactionCurrency !== resolved.currency;
  const evidence = (direction: 'ORIGIN' | 'DESTINATION') => ({
    direction,
    kind: 'amount',
    value: scaledToDecimal(resolved.amount),
    comparison: '>=',
    limit: scaledToDecimal(resolved.threshold),
    currency: resolved.currency,
    ...(converted ? { convertedFrom: { value: scaledToDecimal(toScaled(details.transactionAmount)), currency: details.transactionCurrency } } : {}),
  });
  return [
    { direction: 'ORIGIN', vars, evidence: [evidence('ORIGIN')] },
    { direction: 'DESTINATION', vars, evidence: [evidence('DESTINATION')] },
  ] as RuleHit[];
}

describe('R-2 against a resolve-then-compare reference', () => {
  fcTest.prop([thresholdsArb, fc.integer({ min: 0, max: 3_000_000 }).map((n) => n / 100), fc.constantFrom(...CURRENCIES), fc.boolean(), fc.boolean()])(
    'hits and describes as the resolve-then-compare reference (frozen thresholds or not, with or without an amount)',
    (thresholds, amount, currency, frozen, withAmount) => {
      const t = tx({ timestamp: T0, originAmountDetails: withAmount ? { transactionAmount: amount, transactionCurrency: currency } : undefined }) as never;
      const map = frozen ? deepFreeze({ ...thresholds }) : thresholds;
      const ctx = { transaction: t, parameters: { transactionAmountThreshold: map }, originUser: null, destinationUser: null, aggregates: {}, money };
      expect(r2TransactionAmount.check(ctx as never)).toEqual(referenceR2(t, map, money));
    },
  );
});
