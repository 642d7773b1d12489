import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
interface Tx {
  at: number;
  amount?: number;
  currency?: string;
  origin?: string;
  destination?: string;
}
function build(t: Tx): TransactionInput {
  n += 1;
  const details = { transactionAmount: t.amount ?? 100, transactionCurrency: t.currency ?? 'EUR', country: 'DE' };
  return {
    type: 'TRANSFER',
    transactionId: `round-${n}`,
    timestamp: t.at,
    originUserId: t.origin ?? 'alice',
    destinationUserId: t.destination ?? `shop-${n}`,
    originAmountDetails: details,
    destinationAmountDetails: details,
  };
}

async function engineWith(parameters: Record<string, unknown>) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-124',
    parameters: { initialTransactions: 2, patternPercentageLimit: 50, checkSender: 'sending', checkReceiver: 'none', ...parameters },
  });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-124').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** `amounts` are sent a millisecond apart, the last one at T0 (the current transaction). */
interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  amounts: number[];
  currency?: string;
  expected: string[];
}

const rows: Row[] = [
  { name: '2 round of 3 (66.7 % > 50 %) hits', amounts: [100, 150, 200], expected: ['ORIGIN'] },
  { name: 'exactly at the percentage (2 of 4 = 50 %) does not hit', amounts: [100, 150, 200, 150], expected: [] },
  { name: 'one round transaction more (3 of 5 = 60 %) hits', amounts: [100, 150, 200, 150, 300], expected: ['ORIGIN'] },
  { name: 'a non-round current transaction still hits while the share is over the limit', amounts: [100, 200, 300, 150], expected: ['ORIGIN'] },
  { name: 'as many transactions as initialTransactions does not hit (needs more)', amounts: [100, 200], expected: [] },
  { name: 'one transaction more than initialTransactions hits', amounts: [100, 200], parameters: { initialTransactions: 1 }, expected: ['ORIGIN'] },
  {
    name: 'the first transaction hits with initialTransactions 0 and limit 0',
    amounts: [100],
    parameters: { initialTransactions: 0, patternPercentageLimit: 0 },
    expected: ['ORIGIN'],
  },
  { name: 'limit 100 never hits', amounts: [100, 200, 300], parameters: { patternPercentageLimit: 100 }, expected: [] },
  { name: '100.00 written with decimals is round', amounts: [100.0, 200.0, 1], expected: ['ORIGIN'] },
  { name: '100.5 is not round', amounts: [100.5, 200.5, 300], expected: [] },
  { name: '50 is not round', amounts: [50, 250, 300], expected: [] },
  { name: 'a zero amount is not round', amounts: [0, 0, 300], expected: [] },
  { name: 'round in its own currency (10000 JPY), no conversion', amounts: [10_000, 5_000, 1], currency: 'JPY', expected: ['ORIGIN'] },
  { name: 'fractional limit: 1 of 3 (33.33… %) > 33.33 % hits', amounts: [100, 1, 1], parameters: { patternPercentageLimit: 33.33 }, expected: ['ORIGIN'] },
  { name: 'fractional limit: 1 of 3 (33.33… %) is not > 33.34 %', amounts: [100, 1, 1], parameters: { patternPercentageLimit: 33.34 }, expected: [] },
  {
    name: 'exactness: 1 of 3 is > 33.333333 % (no float rounding)',
    amounts: [100, 1, 1],
    parameters: { patternPercentageLimit: 33.333333 },
    expected: ['ORIGIN'],
  },
];

describe('R-124 Too many round transactions', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters ?? {});
      let last: string[] = [];
      const k = row.amounts.length;
      for (const [i, amount] of row.amounts.entries()) {
        last = hitsOf(await engine.createTransaction(build({ at: T0 - (k - 1 - i), amount, currency: row.currency ?? 'EUR' })));
      }
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a transaction exactly at the window start (7 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a transaction 1 ms before the window start does not count', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith({ initialTransactions: 2 });
      await engine.createTransaction(build({ at: T0 - 7 * DAY + row.offset, amount: 100 }));
      await engine.createTransaction(build({ at: T0 - 1, amount: 1 }));
      expect(hitsOf(await engine.createTransaction(build({ at: T0, amount: 200 })))).toEqual(row.expected);
    });
  }

  it("the receiver side counts the receiver's transactions", async () => {
    const engine = await engineWith({ checkSender: 'none', checkReceiver: 'receiving' });
    await engine.createTransaction(build({ at: T0 - 2, origin: 'x', destination: 'bob', amount: 100 }));
    await engine.createTransaction(build({ at: T0 - 1, origin: 'y', destination: 'bob', amount: 1 }));
    expect(hitsOf(await engine.createTransaction(build({ at: T0, destination: 'bob', amount: 500 })))).toEqual(['DESTINATION']);
  });

  it('an event that makes a past amount round counts it as round from then on', async () => {
    const engine = await engineWith({});
    const past = build({ at: T0 - 3, amount: 150 });
    await engine.createTransaction(past);
    await engine.createTransaction(build({ at: T0 - 2, amount: 1 }));
    expect(hitsOf(await engine.createTransaction(build({ at: T0 - 1, amount: 100 })))).toEqual([]);
    const ev = await engine.createTransactionEvent({
      transactionId: past.transactionId as string,
      timestamp: T0 - 0.5,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 200, transactionCurrency: 'EUR', country: 'DE' } },
    });
    // The event re-evaluates the past transaction: in its window (ending at T0 − 3) it is alone.
    expect(hitsOf(ev)).toEqual([]);
    // Now 200, 1, 100, 300: 3 round of 4 (75 %). Without the event it would be 2 of 4 (50 %, no hit).
    expect(hitsOf(await engine.createTransaction(build({ at: T0, amount: 300 })))).toEqual(['ORIGIN']);
  });

  it('renders the counts into the description', async () => {
    const engine = await engineWith({});
    await engine.createTransaction(build({ at: T0 - 2, amount: 100 }));
    await engine.createTransaction(build({ at: T0 - 1, amount: 1 }));
    const hit = await engine.createTransaction(build({ at: T0, amount: 200 }));
    expect(hit.hitRules[0]?.ruleDescription).toBe('Sender made 2 round transactions out of 3 in 7 days, more than 50%.');
  });

  const invalid = [
    { name: 'a percentage over 100', parameters: { patternPercentageLimit: 101 }, path: '/parameters/patternPercentageLimit' },
    { name: 'a negative percentage', parameters: { patternPercentageLimit: -1 }, path: '/parameters/patternPercentageLimit' },
    { name: 'a fractional initialTransactions', parameters: { initialTransactions: 1.5 }, path: '/parameters/initialTransactions' },
    { name: 'an unknown checkSender', parameters: { checkSender: 'receiving' }, path: '/parameters/checkSender' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-124', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  test.prop(
    [
      fc.array(fc.constantFrom<number>(100, 150, 200, 0.5, 1_000, 99.99, 0), { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom(0, 25, 33.33, 50, 66.67, 100),
    ],
    { numRuns: 50 },
  )('hits exactly as a brute-force percentage over the window says', async (amounts, initial, limit) => {
    const engine = await engineWith({ initialTransactions: initial, patternPercentageLimit: limit });
    let total = 0;
    let round = 0;
    for (const [i, amount] of amounts.entries()) {
      total += 1;
      if (Number.isInteger(amount) && amount % 100 === 0 && amount !== 0) round += 1;
      // limit has at most 2 decimals: compare in hundredths of a percent, as integers.
      const expected = total > initial && round * 10_000 > Math.round(limit * 100) * total;
      const r = await engine.createTransaction(build({ at: T0 + i * 60_000, amount }));
      expect(hitsOf(r)).toEqual(expected ? ['ORIGIN'] : []);
    }
  });
});
