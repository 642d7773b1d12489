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
/** By default a new sender pays bob. */
function build(t: Tx): TransactionInput {
  n += 1;
  const details = { transactionAmount: t.amount ?? 100, transactionCurrency: t.currency ?? 'EUR', country: 'DE' };
  return {
    type: 'TRANSFER',
    transactionId: `rsu-${n}`,
    timestamp: t.at,
    originUserId: t.origin ?? `payer-${n}`,
    destinationUserId: t.destination ?? 'bob',
    originAmountDetails: details,
    destinationAmountDetails: details,
  };
}

async function engineWith(parameters: Record<string, unknown>) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-130', parameters: { transactionsLimit: 2, ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-130').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  past: Tx[];
  current: Tx;
  expected: string[];
}

const rows: Row[] = [
  { name: 'a count equal to the limit does not hit (strict >)', past: [{ at: T0 - 1 }], current: { at: T0 }, expected: [] },
  {
    name: 'limit + 1 round transactions to the same receiver hit it',
    past: [{ at: T0 - 2 }, { at: T0 - 1, amount: 500 }],
    current: { at: T0 },
    expected: ['DESTINATION'],
  },
  { name: 'a first round transaction hits with limit 0', parameters: { transactionsLimit: 0 }, past: [], current: { at: T0 }, expected: ['DESTINATION'] },
  {
    name: 'a non-round current transaction never hits',
    parameters: { transactionsLimit: 0 },
    past: [{ at: T0 - 1 }],
    current: { at: T0, amount: 150 },
    expected: [],
  },
  {
    name: 'non-round past transactions do not count',
    past: [
      { at: T0 - 2, amount: 150 },
      { at: T0 - 1, amount: 99.99 },
    ],
    current: { at: T0 },
    expected: [],
  },
  { name: '100.01 is not round', past: [{ at: T0 - 2, amount: 100.01 }, { at: T0 - 1 }], current: { at: T0 }, expected: [] },
  {
    name: 'round in the own currency (JPY 10000), without conversion',
    past: [{ at: T0 - 2, amount: 10_000, currency: 'JPY' }, { at: T0 - 1 }],
    current: { at: T0, amount: 300 },
    expected: ['DESTINATION'],
  },
  { name: 'the window start (7 days) is inclusive', past: [{ at: T0 - 7 * DAY }, { at: T0 - 1 }], current: { at: T0 }, expected: ['DESTINATION'] },
  { name: '1 ms before the window start is out', past: [{ at: T0 - 7 * DAY - 1 }, { at: T0 - 1 }], current: { at: T0 }, expected: [] },
  {
    name: 'round transactions to another receiver do not count',
    past: [
      { at: T0 - 2, destination: 'carol' },
      { at: T0 - 1, destination: 'carol' },
    ],
    current: { at: T0 },
    expected: [],
  },
  {
    name: "by default the sender side is not checked ('none')",
    past: [
      { at: T0 - 2, origin: 'alice', destination: 'x' },
      { at: T0 - 1, origin: 'alice', destination: 'y' },
    ],
    current: { at: T0, origin: 'alice', destination: 'z' },
    expected: [],
  },
  {
    name: "checkSender 'sending': the sender's round transactions count",
    parameters: { checkSender: 'sending', checkReceiver: 'none' },
    past: [
      { at: T0 - 2, origin: 'alice', destination: 'x' },
      { at: T0 - 1, origin: 'alice', destination: 'y' },
    ],
    current: { at: T0, origin: 'alice', destination: 'z' },
    expected: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'all': round transactions the receiver sent count too",
    parameters: { checkReceiver: 'all' },
    past: [{ at: T0 - 2, origin: 'bob', destination: 'x' }, { at: T0 - 1 }],
    current: { at: T0 },
    expected: ['DESTINATION'],
  },
  {
    name: 'initialTransactions: exactly as many all-time transactions (this one included) hits',
    parameters: { transactionsLimit: 0, initialTransactions: 3 },
    past: [
      { at: T0 - 30 * DAY, amount: 1 },
      { at: T0 - 1, amount: 1 },
    ],
    current: { at: T0 },
    expected: ['DESTINATION'],
  },
  {
    name: 'initialTransactions: one transaction short does not hit',
    parameters: { transactionsLimit: 0, initialTransactions: 4 },
    past: [
      { at: T0 - 30 * DAY, amount: 1 },
      { at: T0 - 1, amount: 1 },
    ],
    current: { at: T0 },
    expected: [],
  },
];

describe('R-130 Too many round transactions to the same user', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters ?? {});
      for (const p of row.past) await engine.createTransaction(build(p));
      const r = await engine.createTransaction(build(row.current));
      expect(hitsOf(r)).toEqual(row.expected);
      expect(r.status).toBe(row.expected.length > 0 ? 'FLAG' : 'ALLOW');
    });
  }

  it('an event that makes a past amount round counts it from then on', async () => {
    const engine = await engineWith({});
    const past = build({ at: T0 - 2, amount: 150 });
    await engine.createTransaction(past);
    await engine.createTransaction(build({ at: T0 - 1 }));
    await engine.createTransactionEvent({
      transactionId: past.transactionId as string,
      timestamp: T0 - 0.5,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 200, transactionCurrency: 'EUR', country: 'DE' } },
    });
    expect(hitsOf(await engine.createTransaction(build({ at: T0 })))).toEqual(['DESTINATION']);
  });

  it('an event on the current transaction counts it once', async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    const t = build({ at: T0 });
    expect(hitsOf(await engine.createTransaction(t))).toEqual([]);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId as string, timestamp: T0 + 1, transactionState: 'SENT' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('renders count, window and limit into the description', async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    await engine.createTransaction(build({ at: T0 - 1 }));
    const r = await engine.createTransaction(build({ at: T0 }));
    expect(r.hitRules[0]?.ruleDescription).toBe('Receiver had 2 round-amount transactions in 7 days, more than the limit of 1.');
  });

  const invalid = [
    { name: 'sameAmount (not supported: the store cannot group by amount)', parameters: { sameAmount: true }, path: '/parameters/sameAmount' },
    { name: 'a negative limit', parameters: { transactionsLimit: -1 }, path: '/parameters/transactionsLimit' },
    { name: 'a fractional initialTransactions', parameters: { initialTransactions: 0.5 }, path: '/parameters/initialTransactions' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-130', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  test.prop(
    [
      fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 * DAY }), amount: fc.constantFrom(100, 150, 200, 0.5, 1_000, 99.99) }), {
        minLength: 1,
        maxLength: 20,
      }),
      fc.integer({ min: 0, max: 4 }),
    ],
    { numRuns: 50 },
  )('hits exactly as a brute-force count of round amounts over the last 7 days says', async (steps, limit) => {
    const engine = await engineWith({ transactionsLimit: limit });
    const round = (a: number) => Number.isInteger(a) && a % 100 === 0;
    const seen: { at: number; amount: number }[] = [];
    let at = T0;
    for (const s of steps) {
      at += s.gap;
      seen.push({ at, amount: s.amount });
      const count = seen.filter((e) => e.at >= at - 7 * DAY && e.at <= at && round(e.amount)).length;
      const r = await engine.createTransaction(build({ at, amount: s.amount }));
      expect(hitsOf(r)).toEqual(round(s.amount) && count > limit ? ['DESTINATION'] : []);
    }
  });
});
