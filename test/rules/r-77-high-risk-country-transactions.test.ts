import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
interface Tx {
  at: number;
  /** Destination country (the sender's counterparty country); `null` = none. */
  to?: string | null;
  /** Origin country (the receiver's counterparty country). */
  from?: string;
  origin?: string;
  destination?: string;
}
function build(t: Tx): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `hrc-${n}`,
    timestamp: t.at,
    originUserId: t.origin ?? 'alice',
    destinationUserId: t.destination ?? `shop-${n}`,
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: t.from ?? 'DE' },
    ...(t.to === null ? {} : { destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: t.to ?? 'IR' } }),
  };
}

async function engineWith(parameters: Record<string, unknown>) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-77',
    parameters: { highRiskCountries: ['IR', 'KP'], checkSender: 'sending', checkReceiver: 'none', ...parameters },
  });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-77').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

interface Row {
  name: string;
  parameters: Record<string, unknown>;
  past: Tx[];
  current: Tx;
  expected: string[];
}

const rows: Row[] = [
  {
    name: 'a first transaction to a high-risk country hits with limit 0 (1 > 0)',
    parameters: { transactionsLimit: 0 },
    past: [],
    current: { at: T0 },
    expected: ['ORIGIN'],
  },
  {
    name: 'a count equal to the limit does not hit (strict >)',
    parameters: { transactionsLimit: 2 },
    past: [{ at: T0 - 1 }],
    current: { at: T0 },
    expected: [],
  },
  {
    name: 'limit + 1 high-risk transactions hit',
    parameters: { transactionsLimit: 2 },
    past: [{ at: T0 - 2 }, { at: T0 - 1, to: 'KP' }],
    current: { at: T0 },
    expected: ['ORIGIN'],
  },
  {
    name: 'a current transaction to a non-listed country never hits, whatever the past',
    parameters: { transactionsLimit: 0 },
    past: [{ at: T0 - 2 }, { at: T0 - 1 }],
    current: { at: T0, to: 'FR' },
    expected: [],
  },
  {
    name: 'past transactions to non-listed countries do not count',
    parameters: { transactionsLimit: 1 },
    past: [
      { at: T0 - 2, to: 'FR' },
      { at: T0 - 1, to: 'NL' },
    ],
    current: { at: T0 },
    expected: [],
  },
  {
    name: 'inclusive list: a past transaction without a destination country does not count',
    parameters: { transactionsLimit: 1 },
    past: [{ at: T0 - 1, to: null }],
    current: { at: T0 },
    expected: [],
  },
  { name: 'the window start is inclusive', parameters: { transactionsLimit: 1 }, past: [{ at: T0 - HOUR }], current: { at: T0 }, expected: ['ORIGIN'] },
  { name: '1 ms before the window start is out', parameters: { transactionsLimit: 1 }, past: [{ at: T0 - HOUR - 1 }], current: { at: T0 }, expected: [] },
  { name: 'an empty inclusive list never hits', parameters: { transactionsLimit: 0, highRiskCountries: [] }, past: [], current: { at: T0 }, expected: [] },
  {
    name: 'exclusive list: a non-listed country is high risk',
    parameters: { transactionsLimit: 1, highRiskCountries: ['DE', 'FR'], highRiskCountriesExclusive: true },
    past: [{ at: T0 - 1, to: 'US' }],
    current: { at: T0, to: 'US' },
    expected: ['ORIGIN'],
  },
  {
    name: 'exclusive list: a listed (allowed) country does not count',
    parameters: { transactionsLimit: 1, highRiskCountries: ['DE', 'FR'], highRiskCountriesExclusive: true },
    past: [{ at: T0 - 1, to: 'FR' }],
    current: { at: T0, to: 'US' },
    expected: [],
  },
  {
    name: 'exclusive list: a current transaction to an allowed country never hits',
    parameters: { transactionsLimit: 0, highRiskCountries: ['DE', 'FR'], highRiskCountriesExclusive: true },
    past: [{ at: T0 - 1, to: 'US' }],
    current: { at: T0, to: 'FR' },
    expected: [],
  },
  {
    name: 'exclusive list: a transaction without a counterparty country counts as high risk (fail closed)',
    parameters: { transactionsLimit: 1, highRiskCountries: ['DE', 'FR'], highRiskCountriesExclusive: true },
    past: [{ at: T0 - 1, to: null }],
    current: { at: T0, to: null },
    expected: ['ORIGIN'],
  },
  {
    name: 'exclusive list with no country: every country is high risk',
    parameters: { transactionsLimit: 1, highRiskCountries: [], highRiskCountriesExclusive: true },
    past: [{ at: T0 - 1, to: 'FR' }],
    current: { at: T0, to: 'DE' },
    expected: ['ORIGIN'],
  },
  {
    name: 'exclusive false behaves as an inclusive list',
    parameters: { transactionsLimit: 0, highRiskCountries: ['IR'], highRiskCountriesExclusive: false },
    past: [],
    current: { at: T0, to: 'US' },
    expected: [],
  },
  {
    name: 'initialTransactions: exactly as many all-time transactions (this one included) hits',
    parameters: { transactionsLimit: 0, initialTransactions: 3 },
    past: [
      { at: T0 - 10 * DAY, to: 'FR' },
      { at: T0 - 1, to: 'FR' },
    ],
    current: { at: T0 },
    expected: ['ORIGIN'],
  },
  {
    name: 'initialTransactions: one all-time transaction short does not hit',
    parameters: { transactionsLimit: 0, initialTransactions: 4 },
    past: [
      { at: T0 - 10 * DAY, to: 'FR' },
      { at: T0 - 1, to: 'FR' },
    ],
    current: { at: T0 },
    expected: [],
  },
  {
    name: 'initialTransactions 1: the first transaction counts itself',
    parameters: { transactionsLimit: 0, initialTransactions: 1 },
    past: [],
    current: { at: T0 },
    expected: ['ORIGIN'],
  },
  {
    name: "checkSender 'sending': a received transaction from a high-risk country does not count",
    parameters: { transactionsLimit: 1 },
    past: [{ at: T0 - 1, origin: 'x', destination: 'alice', from: 'IR' }],
    current: { at: T0 },
    expected: [],
  },
  {
    name: "checkSender 'all': a received transaction from a high-risk origin country counts",
    parameters: { transactionsLimit: 1, checkSender: 'all' },
    past: [{ at: T0 - 1, origin: 'x', destination: 'alice', from: 'IR' }],
    current: { at: T0 },
    expected: ['ORIGIN'],
  },
  {
    name: "checkReceiver 'receiving': the receiver's counterparty country is the origin country",
    parameters: { transactionsLimit: 1, checkSender: 'none', checkReceiver: 'receiving' },
    past: [{ at: T0 - 1, origin: 'x', destination: 'bob', from: 'KP' }],
    current: { at: T0, destination: 'bob', from: 'IR', to: 'FR' },
    expected: ['DESTINATION'],
  },
  {
    name: "checkReceiver 'receiving': a high-risk destination country does not make the receiver's counterparty high risk",
    parameters: { transactionsLimit: 0, checkSender: 'none', checkReceiver: 'receiving' },
    past: [],
    current: { at: T0, destination: 'bob', from: 'DE', to: 'IR' },
    expected: [],
  },
  {
    name: 'both sides over the limit hit both',
    parameters: { transactionsLimit: 0, checkSender: 'all', checkReceiver: 'all', highRiskCountries: ['IR', 'KP'] },
    past: [],
    current: { at: T0, destination: 'bob', from: 'KP', to: 'IR' },
    expected: ['ORIGIN', 'DESTINATION'],
  },
];

describe('R-77 Too Many Transactions To High Risk Country', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters);
      for (const p of row.past) await engine.createTransaction(build(p));
      const r = await engine.createTransaction(build(row.current));
      expect(hitsOf(r)).toEqual(row.expected);
      expect(r.status).toBe(row.expected.length > 0 ? 'FLAG' : 'ALLOW');
    });
  }

  it('an event moving a past transaction to a high-risk country counts it from then on', async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    const past = build({ at: T0 - 10, to: 'FR' });
    await engine.createTransaction(past);
    expect(hitsOf(await engine.createTransaction(build({ at: T0 - 5 })))).toEqual([]);
    await engine.createTransactionEvent({
      transactionId: past.transactionId as string,
      timestamp: T0 - 4,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'IR' } },
    });
    expect(hitsOf(await engine.createTransaction(build({ at: T0 })))).toEqual(['ORIGIN']);
  });

  it('an event on the current transaction counts it once', async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    const t = build({ at: T0 });
    expect(hitsOf(await engine.createTransaction(t))).toEqual([]);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId as string, timestamp: T0 + 1, transactionState: 'SENT' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('renders count, window, country and limit into the description', async () => {
    const engine = await engineWith({ transactionsLimit: 1 });
    await engine.createTransaction(build({ at: T0 - 1 }));
    const r = await engine.createTransaction(build({ at: T0, to: 'KP' }));
    expect(r.hitRules[0]?.ruleDescription).toBe(
      'Sender made 2 transactions with high-risk counterparty countries in 1 hour (this one: KP), more than the limit of 1.',
    );
  });

  const invalid = [
    { name: 'a negative limit', parameters: { transactionsLimit: -1 }, path: '/parameters/transactionsLimit' },
    { name: 'an unknown country code', parameters: { highRiskCountries: ['XX'] }, path: '/parameters/highRiskCountries/0' },
    { name: 'a non-boolean exclusive flag', parameters: { highRiskCountriesExclusive: 'yes' }, path: '/parameters/highRiskCountriesExclusive' },
    { name: 'a negative initialTransactions', parameters: { initialTransactions: -1 }, path: '/parameters/initialTransactions' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-77', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  const country = fc.constantFrom('IR', 'KP', 'FR', 'DE', null);
  test.prop(
    [
      fc.array(fc.record({ gap: fc.integer({ min: 0, max: 40 * 60_000 }), to: country }), { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 4 }),
      fc.boolean(),
    ],
    { numRuns: 50 },
  )('hits exactly as a brute-force count over the last hour says', async (steps, limit, exclusive) => {
    const list = ['IR', 'KP'];
    const engine = await engineWith({ transactionsLimit: limit, highRiskCountries: list, highRiskCountriesExclusive: exclusive });
    const highRisk = (c: string | null) => (exclusive ? c === null || !list.includes(c) : c !== null && list.includes(c));
    const seen: { at: number; to: string | null }[] = [];
    let at = T0;
    for (const s of steps) {
      at += s.gap;
      seen.push({ at, to: s.to });
      const count = seen.filter((e) => e.at >= at - HOUR && e.at <= at && highRisk(e.to)).length;
      const r = await engine.createTransaction(build({ at, to: s.to }));
      expect(hitsOf(r)).toEqual(highRisk(s.to) && count > limit ? ['ORIGIN'] : []);
    }
  });
});
