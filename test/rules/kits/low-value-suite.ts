/**
 * The tests of the low-value rules (R-7 received, R-8 sent), one table for both: each rule's file
 * runs {@link describeLowValueRule}. Not a test file.
 */
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, errorOf, testEngine, type TransactionInput } from '../../helpers.js';

export const engineFor = () => testEngine().engine;

/** */
export type RuleId = 'R-7' | 'R-8';
const DIRECTION: Record<RuleId, string> = { 'R-7': 'DESTINATION', 'R-8': 'ORIGIN' };

let n = 0;
/**
 * A transaction of the user under test: for R-8 alice SENDS `amount` (origin amount) to `other`;
 * for R-7 bob RECEIVES `amount` (destination amount) from `other`. The other side's amount is a
 * far-out-of-range 5 USD, so a rule reading the wrong side's amount fails.
 */
export function txOf(rule: RuleId, at: number, amount: number, currency = 'USD', other = 'carol'): TransactionInput {
  n += 1;
  const own = { transactionAmount: amount, transactionCurrency: currency };
  const far = { transactionAmount: 5, transactionCurrency: 'USD' };
  return rule === 'R-8'
    ? {
        type: 'TRANSFER',
        transactionId: `lv-${n}`,
        timestamp: at,
        originUserId: 'alice',
        destinationUserId: other,
        originAmountDetails: own,
        destinationAmountDetails: far,
      }
    : {
        type: 'TRANSFER',
        transactionId: `lv-${n}`,
        timestamp: at,
        originUserId: other,
        destinationUserId: 'bob',
        originAmountDetails: far,
        destinationAmountDetails: own,
      };
}

/** The sides rule `id` hit in a result. */
export const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }, id: string) =>
  r.hitRules.filter((h) => h.ruleId === id).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

async function engineWith(ruleId: RuleId, parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId,
    parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 3, ...parameters },
  });
  return engine;
}

interface Step {
  amount: number;
  currency?: string;
  /** Offset from T0 (default: the step index). */
  at?: number;
}
interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  steps: Step[];
  hits: boolean[];
}

const s = (...amounts: number[]): Step[] => amounts.map((amount) => ({ amount }));

const rows: Row[] = [
  { name: 'the first transaction never hits with a count of 3', steps: s(995), hits: [false] },
  {
    name: 'without timeWindow a run spread over 90 days hits (the whole history)',
    steps: [
      { amount: 995, at: 0 },
      { amount: 995, at: 45 * DAY },
      { amount: 995, at: 90 * DAY },
    ],
    hits: [false, false, true],
  },
  {
    name: 'timeWindow: the same run spread over 90 days does not hit a 30-day window',
    parameters: { timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
    steps: [
      { amount: 995, at: 0 },
      { amount: 995, at: 45 * DAY },
      { amount: 995, at: 90 * DAY },
    ],
    hits: [false, false, false],
  },
  {
    name: 'timeWindow: the oldest of the last three exactly at the window start is inside (hits)',
    parameters: { timeWindow: { units: 1, granularity: 'hour' } },
    steps: [
      { amount: 995, at: 0 },
      { amount: 995, at: 1 },
      { amount: 995, at: HOUR },
    ],
    hits: [false, false, true],
  },
  {
    name: 'timeWindow: the oldest of the last three 1 ms before the window start breaks the run',
    parameters: { timeWindow: { units: 1, granularity: 'hour' } },
    steps: [
      { amount: 995, at: 0 },
      { amount: 995, at: 1 },
      { amount: 995, at: HOUR + 1 },
    ],
    hits: [false, false, false],
  },
  {
    name: 'timeWindow: an out-of-range transaction before the window does not matter once the last three are inside',
    parameters: { timeWindow: { units: 1, granularity: 'hour' } },
    steps: [
      { amount: 5000, at: 0 },
      { amount: 995, at: 1 },
      { amount: 995, at: 2 },
      { amount: 995, at: HOUR + 1 },
    ],
    hits: [false, false, false, true],
  },
  { name: 'three in range: the third hits (the current one is included)', steps: s(995, 995, 995), hits: [false, false, true] },
  { name: 'every further in-range transaction hits again', steps: s(995, 995, 995, 995), hits: [false, false, true, true] },
  { name: 'exactly at the minimum (990) is in range', steps: s(990, 990, 990), hits: [false, false, true] },
  { name: 'one cent below the minimum (989.99) is out', steps: s(989.99, 995, 995), hits: [false, false, false] },
  { name: 'exactly at the maximum (1000) is in range', steps: s(1000, 1000, 1000), hits: [false, false, true] },
  { name: 'one cent above the maximum (1000.01) is out', steps: s(995, 1000.01, 995), hits: [false, false, false] },
  { name: 'the current transaction out of range never hits', steps: s(995, 995, 1000.01), hits: [false, false, false] },
  {
    name: 'an out-of-range transaction stops hits until it falls out of the last N',
    steps: s(995, 995, 995, 1200, 995, 995, 995),
    hits: [false, false, true, false, false, false, true],
  },
  {
    name: 'a count of 1: any in-range transaction hits on its own',
    parameters: { lowTransactionCount: 1 },
    steps: s(995, 1200, 990),
    hits: [true, false, true],
  },
  { name: 'a count of 2: the second in-range transaction hits', parameters: { lowTransactionCount: 2 }, steps: s(995, 995), hits: [false, true] },
  {
    name: 'a later-timestamped transaction that arrived first is not among the last ones',
    steps: [
      { amount: 995, at: 10 },
      { amount: 995, at: 20 },
      { amount: 995, at: 0 },
    ],
    hits: [false, false, false],
  },
  {
    name: 'an earlier-timestamped transaction arriving late counts for the transactions after it',
    steps: [
      { amount: 995, at: 0 },
      { amount: 995, at: 20 },
      { amount: 995, at: 10 },
      { amount: 995, at: 30 },
    ],
    hits: [false, false, false, true],
  },
  {
    name: 'only a minimum: any amount at or above it is low-value',
    parameters: { lowTransactionValues: { USD: { min: 990 } } },
    steps: s(990, 1e9, 5000),
    hits: [false, false, true],
  },
  {
    name: 'only a maximum: zero is low-value',
    parameters: { lowTransactionValues: { USD: { max: 1000 } } },
    steps: s(0, 1000, 0.01),
    hits: [false, false, true],
  },
  {
    name: 'a maximum below the minimum never matches',
    parameters: { lowTransactionValues: { USD: { min: 1000, max: 990 } }, lowTransactionCount: 1 },
    steps: s(995, 990, 1000),
    hits: [false, false, false],
  },
  // Non-base range currency (the engine's base is USD): amounts are converted into EUR and rounded to cents.
  {
    name: 'EUR range: EUR amounts exactly at the minimum (990 EUR) are in range after the round trip',
    parameters: { lowTransactionValues: { EUR: { min: 990, max: 1000 } } },
    steps: [
      { amount: 990, currency: 'EUR' },
      { amount: 990, currency: 'EUR' },
      { amount: 990, currency: 'EUR' },
    ],
    hits: [false, false, true],
  },
  {
    name: 'EUR range: one cent below the minimum (989.99 EUR) is out',
    parameters: { lowTransactionValues: { EUR: { min: 990, max: 1000 } } },
    steps: [
      { amount: 995, currency: 'EUR' },
      { amount: 989.99, currency: 'EUR' },
      { amount: 995, currency: 'EUR' },
    ],
    hits: [false, false, false],
  },
  {
    name: 'EUR range: exactly at the maximum (1000 EUR) is in, 1000.01 EUR is out',
    parameters: { lowTransactionValues: { EUR: { min: 990, max: 1000 } }, lowTransactionCount: 1 },
    steps: [
      { amount: 1000, currency: 'EUR' },
      { amount: 1000.01, currency: 'EUR' },
    ],
    hits: [true, false],
  },
  {
    name: 'USD range, EUR transactions: 960 EUR (≈ 993.98 USD) is in, 970 EUR (≈ 1004.33 USD) is out',
    parameters: { lowTransactionCount: 1 },
    steps: [
      { amount: 960, currency: 'EUR' },
      { amount: 970, currency: 'EUR' },
    ],
    hits: [true, false],
  },
  {
    name: 'the base currency takes precedence over the first listed currency',
    parameters: { lowTransactionValues: { EUR: { min: 0, max: 1 }, USD: { min: 990, max: 1000 } }, lowTransactionCount: 1 },
    steps: s(995),
    hits: [true],
  },
  {
    name: 'an amount in a currency without a rate is never low-value',
    parameters: { lowTransactionValues: { USD: { min: 0 } }, lowTransactionCount: 1 },
    steps: [{ amount: 995, currency: 'XAF' }],
    hits: [false],
  },
];

/** The boundary table and the behaviours of one low-value rule, through the engine. */
export function describeLowValueRule(ruleId: RuleId): void {
  describe(`${ruleId} ${ruleId === 'R-7' ? 'Too many transactions under reporting limit received by a user' : 'Too many transactions under reporting limit sent by a user'}`, () => {
    for (const row of rows) {
      it(row.name, async () => {
        const engine = await engineWith(ruleId, row.parameters);
        const hits: boolean[] = [];
        for (const [i, step] of row.steps.entries()) {
          const r = await engine.createTransaction(txOf(ruleId, T0 + (step.at ?? i), step.amount, step.currency));
          const directions = hitsOf(r, ruleId);
          hits.push(directions.length > 0);
          if (directions.length > 0) expect(directions).toEqual([DIRECTION[ruleId]]);
        }
        expect(hits).toEqual(row.hits);
      });
    }

    it("other users' transactions do not count", async () => {
      const engine = await engineWith(ruleId);
      const other = (at: number) => ({ ...txOf(ruleId, at, 995), originUserId: 'x', destinationUserId: 'y' });
      await engine.createTransaction(other(T0));
      await engine.createTransaction(other(T0 + 1));
      expect(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + 2, 995)), ruleId)).toEqual([]);
    });

    it('a transaction of the other direction does not count (and is not judged)', async () => {
      const engine = await engineWith(ruleId);
      // The user under test on the other side of an in-range transaction.
      const reversed = (at: number) =>
        ruleId === 'R-8'
          ? { ...txOf('R-7', at, 995), originUserId: 'carol', destinationUserId: 'alice' }
          : { ...txOf('R-8', at, 995), originUserId: 'bob', destinationUserId: 'carol' };
      await engine.createTransaction(txOf(ruleId, T0, 995));
      expect(hitsOf(await engine.createTransaction(reversed(T0 + 1)), ruleId)).toEqual([]);
      expect(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + 2, 995)), ruleId)).toEqual([]);
      expect(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + 3, 995)), ruleId)).toEqual([DIRECTION[ruleId]]);
    });

    it('a transaction without a user on the side never hits', async () => {
      const engine = await engineWith(ruleId, { lowTransactionCount: 1 });
      const t = txOf(ruleId, T0, 995) as Record<string, unknown>;
      delete t[ruleId === 'R-7' ? 'destinationUserId' : 'originUserId'];
      expect(hitsOf(await engine.createTransaction(t as TransactionInput), ruleId)).toEqual([]);
    });

    it('an event raising a past amount out of range removes it from the low-value history, one lowering it back restores it', async () => {
      const engine = await engineWith(ruleId);
      const past = txOf(ruleId, T0, 995);
      await engine.createTransaction(past);
      await engine.createTransaction(txOf(ruleId, T0 + 1, 995));
      const side = ruleId === 'R-8' ? 'originAmountDetails' : 'destinationAmountDetails';
      await engine.createTransactionEvent({
        transactionId: past.transactionId,
        timestamp: T0 + 2,
        transactionState: 'SUCCESSFUL',
        updatedTransactionAttributes: { [side]: { transactionAmount: 1000.01, transactionCurrency: 'USD' } },
      });
      expect(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + 3, 995)), ruleId)).toEqual([]);
      await engine.createTransactionEvent({
        transactionId: past.transactionId,
        timestamp: T0 + 4,
        transactionState: 'SUCCESSFUL',
        updatedTransactionAttributes: { [side]: { transactionAmount: 1000, transactionCurrency: 'USD' } },
      });
      // The last two before T0 + 5 are now T0 + 1 and T0 + 3 (both in range); the past one is older.
      expect(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + 5, 995)), ruleId)).toEqual([DIRECTION[ruleId]]);
    });

    it('an event on the current transaction does not count it twice', async () => {
      const engine = await engineWith(ruleId);
      await engine.createTransaction(txOf(ruleId, T0, 995));
      const current = txOf(ruleId, T0 + 1, 995);
      await engine.createTransaction(current);
      // Two transactions in all: an event re-evaluating the second must not see 3.
      const ev = await engine.createTransactionEvent({ transactionId: current.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
      expect(hitsOf(ev, ruleId)).toEqual([]);
    });

    it('renders the count and the range into the description', async () => {
      const engine = await engineWith(ruleId, { lowTransactionCount: 1 });
      const r = await engine.createTransaction(txOf(ruleId, T0, 995));
      const who = ruleId === 'R-7' ? 'received by the receiver' : 'sent by the sender';
      expect(r.hitRules.find((h) => h.ruleId === ruleId)?.ruleDescription).toBe(
        `The last 1 transactions ${who} are all in the low-value range (990.00 USD to 1000.00 USD).`,
      );
    });

    it('names the window in the description when timeWindow is set', async () => {
      const engine = await engineWith(ruleId, { lowTransactionCount: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } });
      const r = await engine.createTransaction(txOf(ruleId, T0, 995));
      const who = ruleId === 'R-7' ? 'received by the receiver' : 'sent by the sender';
      expect(r.hitRules.find((h) => h.ruleId === ruleId)?.ruleDescription).toBe(
        `The last 1 transactions ${who} are all in the low-value range (990.00 USD to 1000.00 USD) within 30 days.`,
      );
    });

    it('uses the defaults (3 transactions from 990 to 1000 USD) when no parameters are given', async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId });
      const results: string[][] = [];
      for (let i = 0; i < 3; i += 1) results.push(hitsOf(await engine.createTransaction(txOf(ruleId, T0 + i, 999.99)), ruleId));
      expect(results).toEqual([[], [], [DIRECTION[ruleId]]]);
    });

    const badRows = [
      { name: 'a count of 0', parameters: { lowTransactionCount: 0 }, path: '/parameters/lowTransactionCount' },
      { name: 'a fractional count', parameters: { lowTransactionCount: 2.5 }, path: '/parameters/lowTransactionCount' },
      { name: 'an empty range map', parameters: { lowTransactionValues: {} }, path: '/parameters/lowTransactionValues' },
      { name: 'a negative minimum', parameters: { lowTransactionValues: { USD: { min: -1 } } }, path: '/parameters/lowTransactionValues/USD/min' },
      { name: 'an unknown bound', parameters: { lowTransactionValues: { USD: { avg: 1 } } }, path: '/parameters/lowTransactionValues/USD/avg' },
      { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
      { name: 'a window without units', parameters: { timeWindow: { granularity: 'day' } }, path: '/parameters/timeWindow/units' },
    ];
    for (const row of badRows) {
      it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
        const e = await errorOf(() =>
          engineFor().createRuleInstance({
            ruleId,
            parameters: { lowTransactionValues: { USD: { min: 990, max: 1000 } }, lowTransactionCount: 3, ...row.parameters },
          }),
        );
        expect(e.code).toBe('INVALID_PARAMETERS');
        expect(e.details[0]?.path).toBe(row.path);
      });
    }
  });
}
