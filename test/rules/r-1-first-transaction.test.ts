import { describe, expect, it } from 'vitest';
import { DAY, T0, testEngine, tx } from '../helpers.js';
import { fc, test as fcTest } from '@fast-check/vitest';
import { toScaled } from '../../src/domain/money.js';
import { r1FirstTransaction } from '../../src/rules/library/r-1-first-transaction.js';
import { resolveThreshold } from '../../src/rules/parameters.js';
import { CURRENCIES, money, thresholdsArb } from './threshold-fixtures.js';

/**
 * R-1 boundary table, through the engine. Each row sends a sequence of transactions in arrival
 * order and names which of them hit (on the sender side).
 */

interface Step {
  /** Offset of the transaction timestamp from T0. */
  at: number;
  origin?: string | undefined;
  destination?: string | undefined;
  amount?: number;
}

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  steps: Step[];
  hits: boolean[];
}

const rows: Row[] = [
  { name: 'the first sending transaction of a user hits', steps: [{ at: 0 }], hits: [true] },
  { name: 'a second, later sending transaction does not hit', steps: [{ at: 0 }, { at: DAY }], hits: [true, false] },
  {
    name: 'a second transaction with the SAME timestamp does not hit (the earlier one is up to and including now)',
    steps: [{ at: 0 }, { at: 0 }],
    hits: [true, false],
  },
  {
    name: 'a LATE earlier transaction (older timestamp, arriving after a newer one) is the first and hits',
    steps: [{ at: DAY }, { at: 0 }],
    hits: [true, true],
  },
  {
    name: 'after a late earlier transaction, a third one in between does not hit',
    steps: [{ at: DAY }, { at: 0 }, { at: DAY / 2 }],
    hits: [true, true, false],
  },
  {
    name: 'a received transaction is not a sending one: the first send after receiving hits',
    steps: [
      { at: 0, origin: 'bob', destination: 'alice' },
      { at: DAY, origin: 'alice', destination: 'bob' },
    ],
    hits: [true, true],
  },
  {
    name: 'first transactions of different users hit independently',
    steps: [
      { at: 0, origin: 'u1' },
      { at: 1, origin: 'u2' },
    ],
    hits: [true, true],
  },
  { name: 'a transaction without a sender never hits', steps: [{ at: 0, origin: undefined }], hits: [false] },
  {
    name: 'amount threshold: a first transaction exactly at the threshold hits (≥)',
    parameters: { transactionAmountThreshold: { EUR: 1000 } },
    steps: [{ at: 0, amount: 1000 }],
    hits: [true],
  },
  {
    name: 'amount threshold: a first transaction 0.01 below does not hit, and the next one above is no longer first',
    parameters: { transactionAmountThreshold: { EUR: 1000 } },
    steps: [
      { at: 0, amount: 999.99 },
      { at: 1, amount: 1000.01 },
    ],
    hits: [false, false],
  },
  {
    name: 'an empty amount threshold map behaves like no threshold',
    parameters: { transactionAmountThreshold: {} },
    steps: [{ at: 0, amount: 0 }],
    hits: [true],
  },
];

describe('R-1 first transaction of a user', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const { engine } = testEngine();
      await engine.createRuleInstance({ ruleId: 'R-1', ...(row.parameters ? { parameters: row.parameters } : {}) });
      const hits: boolean[] = [];
      for (const s of row.steps) {
        const r = await engine.createTransaction(
          tx({
            timestamp: T0 + s.at,
            originUserId: 'origin' in s ? s.origin : 'alice',
            destinationUserId: 'destination' in s ? s.destination : 'bob',
            originAmountDetails: { transactionAmount: s.amount ?? 100, transactionCurrency: 'EUR' },
          }),
        );
        const hit = r.hitRules.length > 0;
        hits.push(hit);
        if (hit) {
          expect(r.hitRules[0]?.ruleHitMeta?.hitDirections).toEqual(['ORIGIN']);
          expect(r.status).toBe('FLAG');
        }
      }
      expect(hits).toEqual(row.hits);
    });
  }

  it('an update of the first transaction does not make a later transaction a first one', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance({ ruleId: 'R-1' });
    const first = tx({ timestamp: T0 });
    await engine.createTransaction(first);
    await engine.createTransactionEvent({ transactionId: first.transactionId, timestamp: T0 + 5, transactionState: 'SUCCESSFUL' });
    const second = await engine.createTransaction(tx({ timestamp: T0 + 10 }));
    expect(second.hitRules).toEqual([]);
  });
});

describe('R-1 against a resolve-then-compare reference', () => {
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
