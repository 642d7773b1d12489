/**
 * Tests whose subject is a module under src/rules/ (a rule, the kits, parameters), waiting to be
 * placed in test/rules/ next to that module's own tests. Each describe names its module.
 */
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider, formatMoney, toScaled } from '../src/domain/money.js';
import { deepFreeze } from '../src/domain/json.js';
import { receiverReads, senderReads, sumAmounts, sumCounts, createSideNames, type SideRead } from '../src/rules/kits/directions.js';
import { computeAnomalyDays } from '../src/rules/kits/anomaly.js';
import { r1FirstTransaction } from '../src/rules/library/r-1-first-transaction.js';
import { r2TransactionAmount } from '../src/rules/library/r-2-transaction-amount.js';
import { r69MoneyFlowVolume } from '../src/rules/library/r-69-money-flow-volume.js';
import { resolveThreshold } from '../src/rules/parameters.js';
import type { RuleHit } from '../src/rules/types.js';
import { DAY, HOUR, T0, testEngine, tx } from './helpers.js';

const hitIds = (r: { hitRules: { ruleId?: string }[] }) => r.hitRules.map((h) => h.ruleId);
/** The hit directions of rule `id` in a result. */
const ruleHits = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

// ---------------------------------------------------------------------------------------------
// compare a resolved threshold as a reference does.
// ---------------------------------------------------------------------------------------------

const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
const CURRENCIES = ['EUR', 'USD', 'GBP', 'JPY', 'KWD', 'XXX'] as const;
const thresholdsArb = fc.dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100), { maxKeys: 3 });

/** A reference R-2: resolve the threshold, then compare. */
function referenceR2(transaction: { originAmountDetails?: { transactionAmount: number; transactionCurrency: string }; timestamp: number }, thresholds: Record<string, number>, m: typeof money): RuleHit[] {
  const details = transaction.originAmountDetails;
  if (!details) return [];
  const resolved = resolveThreshold(thresholds, toScaled(details.transactionAmount), details.transactionCurrency, m, transaction.timestamp);
  if (!resolved || resolved.amount < resolved.threshold) return [];
  const vars = { amount: formatMoney(toScaled(details.transactionAmount), details.transactionCurrency), threshold: formatMoney(resolved.threshold, resolved.currency) };
  return [
    { direction: 'ORIGIN', vars },
    { direction: 'DESTINATION', vars },
  ];
}

const VOLUME = createSideNames('v');
const HISTORY = createSideNames('h');
/** A reference R-69 check: resolve each threshold, then compare. */
function referenceR69(transaction: never, parameters: Record<string, any>, aggregates: Record<string, any>, m: typeof money): RuleHit[] {
  const hits: RuleHit[] = [];
  const t = transaction as { timestamp: number };
  const side = (direction: 'ORIGIN' | 'DESTINATION', volume: readonly SideRead[] | null, history: readonly SideRead[] | null) => {
    if (!volume) return;
    if (parameters.initialTransactions !== undefined && parameters.initialTransactions > 0) {
      if (sumCounts(aggregates, history ?? []) < parameters.initialTransactions) return;
    }
    const total = sumAmounts(aggregates, volume);
    const resolved = resolveThreshold(parameters.transactionVolumeThreshold, total, m.baseCurrency, m, t.timestamp);
    if (!resolved || resolved.amount < resolved.threshold) return;
    const upper = parameters.transactionVolumeUpperThreshold;
    if (upper && Object.keys(upper).length > 0) {
      const bound = resolveThreshold(upper, total, m.baseCurrency, m, t.timestamp);
      if (bound && bound.amount > bound.threshold) return;
    }
    hits.push({
      direction,
      vars: { side: direction === 'ORIGIN' ? 'Sender' : 'Receiver', window: '1 day', volume: formatMoney(resolved.amount, resolved.currency), threshold: formatMoney(resolved.threshold, resolved.currency) },
    });
  };
  side('ORIGIN', senderReads(transaction, parameters.checkSender, VOLUME), senderReads(transaction, parameters.checkSender, HISTORY));
  side('DESTINATION', receiverReads(transaction, parameters.checkReceiver, VOLUME), receiverReads(transaction, parameters.checkReceiver, HISTORY));
  return hits;
}

describe('R-2 transaction amount (src/rules/library/r-2-transaction-amount.ts)', () => {
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

describe('R-1 first transaction (src/rules/library/r-1-first-transaction.ts)', () => {
  fcTest.prop([thresholdsArb, fc.integer({ min: 0, max: 3_000_000 }).map((n) => n / 100), fc.constantFrom(...CURRENCIES), fc.constantFrom(0, 1)])(
    'hits as the resolve-then-compare reference',
    (thresholds, amount, currency, prior) => {
      const t = tx({ timestamp: T0, originAmountDetails: { transactionAmount: amount, transactionCurrency: currency } }) as never;
      const names = r1FirstTransaction.aggregates?.({ transaction: t, parameters: {} as never }) ?? [];
      const aggregates = Object.fromEntries(names.map((n) => [n.name, prior]));
      const ctx = { transaction: t, parameters: { transactionAmountThreshold: thresholds }, originUser: null, destinationUser: null, aggregates, money };
      const got = r1FirstTransaction.check(ctx as never);
      const resolved = resolveThreshold(thresholds, toScaled(amount), currency, money, T0);
      const expected = prior !== 0 ? false : Object.keys(thresholds).length === 0 ? true : resolved !== null && resolved.amount >= resolved.threshold;
      expect(got.length > 0).toBe(expected);
    },
  );
});

describe('R-69 money flow volume (src/rules/library/r-69-money-flow-volume.ts)', () => {
  fcTest.prop([
    fc.dictionary(fc.constantFrom(...CURRENCIES), fc.integer({ min: 0, max: 2_000_000 }).map((n) => n / 100), { minKeys: 1, maxKeys: 3 }),
    fc.option(thresholdsArb, { nil: undefined }),
    fc.constantFrom('sending', 'all', 'none'),
    fc.constantFrom('receiving', 'all', 'none'),
    fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
    fc.array(fc.bigInt({ min: 0n, max: 3_000_000_000_000_000n }), { minLength: 8, maxLength: 8 }),
    fc.array(fc.integer({ min: 0, max: 6 }), { minLength: 8, maxLength: 8 }),
    fc.constantFrom('USD', 'EUR', 'JPY'),
  ])('with upper thresholds and initial transactions, hits and describes as the resolve-then-compare reference', (lower, upper, checkSender, checkReceiver, initialTransactions, sums, counts, base) => {
    const t = tx({ timestamp: T0 }) as never;
    const parameters = deepFreeze({
      transactionVolumeThreshold: lower,
      ...(upper !== undefined ? { transactionVolumeUpperThreshold: upper } : {}),
      timeWindow: { units: 1, granularity: 'day', rollingBasis: true },
      checkSender,
      checkReceiver,
      ...(initialTransactions !== undefined ? { initialTransactions } : {}),
    });
    const needs = r69MoneyFlowVolume.aggregates?.({ transaction: t, parameters: parameters as never }) ?? [];
    const aggregates: Record<string, unknown> = {};
    needs.forEach((n, i) => (aggregates[n.name] = n.fn === 'sum' ? sums[i % 8] : counts[i % 8]));
    const m = { rates: createFixedRateProvider(), baseCurrency: base };
    const got = r69MoneyFlowVolume.check({ transaction: t, parameters, originUser: null, destinationUser: null, aggregates, money: m } as never);
    expect(got).toEqual(referenceR69(t, parameters, aggregates, m));
  });
});

describe('R-132 blacklisted transaction value (src/rules/library/r-132-blacklisted-transaction-value.ts)', () => {
  async function r132Engine(items: string[], listType = 'BLACKLIST', subtype = 'USER_ID') {
    const { engine } = testEngine();
    await engine.putList('bl', { listType, subtype, items });
    await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: 'bl' } });
    return engine;
  }

  it('both sides listed: hits ORIGIN and DESTINATION, one hit rule', async () => {
    const engine = await r132Engine(['alice', 'bob']);
    const r = await engine.createTransaction(tx());
    expect(ruleHits(r, 'R-132')).toEqual(['ORIGIN', 'DESTINATION']);
    expect(r.hitRules).toHaveLength(1);
  });

  describe('regressions', () => {
    it('blacklistId accepts every list id putList accepts (a 230-character id)', async () => {
      const { engine } = testEngine();
      const id = 'L'.repeat(230);
      await engine.putList(id, { listType: 'BLACKLIST', subtype: 'USER_ID', items: ['alice'] });
      const created = await engine.createRuleInstance({ ruleId: 'R-132', parameters: { blacklistId: id } }).then(
        () => 'created',
        (e: { code?: string }) => e.code,
      );
      expect(created).toBe('created');
    });

    it('a WHITELIST named as its blacklist never hits: a whitelisted user is allowed', async () => {
      const engine = await r132Engine(['alice'], 'WHITELIST');
      const r = await engine.createTransaction(tx());
      expect(r.status).toBe('ALLOW');
      expect(hitIds(r)).toEqual([]);
    });
  });
});

describe('R-88 unexpected IP country (src/rules/library/r-88-unexpected-ip-country.ts): ordering', () => {
  async function r88Engine() {
    const { engine } = testEngine();
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - 400 * DAY, userDetails: { countryOfResidence: 'DE', countryOfNationality: 'DE' } });
    await engine.createRuleInstance({ ruleId: 'R-88' });
    return engine;
  }

  it('a late, earlier transaction sees only what came before it (hits); the later one still hit on creation, not on a later event', async () => {
    const engine = await r88Engine();
    const later = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(later))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 - DAY, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: later.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual([]);
  });

  it('same-timestamp tie: transactions at the same instant never make each other known, whichever arrived first', async () => {
    const engine = await r88Engine();
    const first = tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } });
    expect(hitIds(await engine.createTransaction(first))).toEqual(['R-88']);
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0, originDeviceData: { ipCountry: 'FR' } })))).toEqual(['R-88']);
    const ev = await engine.createTransactionEvent({ transactionId: first.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitIds(ev)).toEqual(['R-88']);
    // One millisecond later the country is known.
    expect(hitIds(await engine.createTransaction(tx({ timestamp: T0 + 1, originDeviceData: { ipCountry: 'FR' } })))).toEqual([]);
  });
});

const card = { method: 'CARD', cardFingerprint: 'fp-1' };
const iban = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
const usd = (amount: number) => ({ transactionAmount: amount, transactionCurrency: 'USD' });

describe('R-41 outflow / inflow volume (src/rules/library/r-41-outflow-inflow-volume.ts): the current transaction and historical filters', () => {
  it('a current outflow that passes the historical filters counts', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-41', filters: { paymentMethodsHistorical: ['CARD'] } });
    await engine.createTransaction(
      tx({ type: 'DEPOSIT', timestamp: T0 - DAY, originUserId: 'bank', destinationUserId: 'alice', originPaymentDetails: card, originAmountDetails: usd(100), destinationAmountDetails: usd(100) }),
    );
    const result = await engine.createTransaction(
      tx({ type: 'WITHDRAWAL', timestamp: T0, originUserId: 'alice', destinationUserId: 'bank', originPaymentDetails: card, originAmountDetails: usd(200), destinationAmountDetails: usd(200) }),
    );
    expect(ruleHits(result, 'R-41')).toEqual(['ORIGIN']);
  });

  describe('regressions', () => {
    it('a current outflow that fails the historical filters is not added to the outflow', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-41', filters: { paymentMethodsHistorical: ['CARD'] } });
      await engine.createTransaction(
        tx({ type: 'DEPOSIT', timestamp: T0 - DAY, originUserId: 'bank', destinationUserId: 'alice', originPaymentDetails: card, originAmountDetails: usd(100), destinationAmountDetails: usd(100) }),
      );
      // No passing outflow: the side has no outflow transaction, so it cannot hit.
      const result = await engine.createTransaction(
        tx({ type: 'WITHDRAWAL', timestamp: T0, originUserId: 'alice', destinationUserId: 'bank', originPaymentDetails: iban, originAmountDetails: usd(200), destinationAmountDetails: usd(200) }),
      );
      expect(ruleHits(result, 'R-41')).toEqual([]);
    });
  });
});

describe('R-7 / R-8 low-value transactions (src/rules/kits/low-value.ts)', () => {
  it('an earlier amount without a rate breaks the run (no hit)', async () => {
    const { engine } = testEngine({ rates: { rate: (from, to) => (from === to ? '1' : from === 'XAF' || to === 'XAF' ? null : '1') } });
    await engine.createRuleInstance({ ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 2 } });
    await engine.createTransaction(tx({ timestamp: T0 - HOUR, originAmountDetails: { transactionAmount: 995, transactionCurrency: 'XAF' } }));
    const result = await engine.createTransaction(tx({ timestamp: T0, originAmountDetails: { transactionAmount: 995, transactionCurrency: 'USD' } }));
    expect(ruleHits(result, 'R-8')).toEqual([]);
  });

  describe('regressions', () => {
    it('a current transaction that fails the historical filters is not one of the "last N"', async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({
        ruleId: 'R-8',
        parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 3 },
        filters: { paymentMethodsHistorical: ['CARD'] },
      });
      await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR, originPaymentDetails: card, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }));
      await engine.createTransaction(tx({ timestamp: T0 - HOUR, originPaymentDetails: card, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }));
      // Only 2 matching (CARD) transactions, the current IBAN one does not match: fewer than 3.
      const result = await engine.createTransaction(tx({ timestamp: T0, originPaymentDetails: iban, originAmountDetails: usd(995), destinationAmountDetails: usd(995) }));
      expect(ruleHits(result, 'R-8')).toEqual([]);
    });
  });
});

describe('computeAnomalyDays (src/rules/kits/anomaly.ts): day ranges', () => {
  it('midnight belongs to the new day; the last ms before the recent period is in baseline day 0', () => {
    const midnight = Date.UTC(2025, 0, 15);
    const days = computeAnomalyDays(midnight);
    expect(days.recentDays[0]).toEqual({ start: midnight, end: midnight });
    const firstRecent = midnight - 29 * DAY;
    expect(days.recent.start).toBe(firstRecent);
    const baseline0 = days.baselineDays[0] as { start: number; end: number };
    expect(baseline0.start).toBe(firstRecent - DAY);
    expect(baseline0.end < firstRecent && baseline0.end >= firstRecent - 1).toBe(true);
  });
});

describe('R-118 account name mismatch (src/rules/library/r-118-account-name-mismatch.ts): unusual Unicode', () => {
  async function hitOf(firstName: string, accountName: string): Promise<string[]> {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-118', parameters: { allowedDistancePercentage: 0 } });
    await engine.createUser({ userId: 'alice', createdTimestamp: T0 - DAY, userDetails: { name: { firstName } } });
    const result = await engine.createTransaction(tx({ originPaymentDetails: { method: 'UPI', upiID: 'alice@bank', name: accountName } }));
    return ruleHits(result, 'R-118');
  }

  it('Devanagari vowel signs are letters, not accents: रीना (Reena) ≠ राना (Rana) at 0 %', async () => {
    expect(await hitOf('रीना', 'राना')).toEqual(['ORIGIN']);
  });

  it('Japanese voicing marks change the name: ガトウ (Gatō) ≠ カトウ (Katō) at 0 %', async () => {
    expect(await hitOf('ガトウ', 'カトウ')).toEqual(['ORIGIN']);
  });

  it('Latin accents are ignored at 0 % (José = JOSE)', async () => {
    expect(await hitOf('José', 'JOSE')).toEqual([]);
  });
});
