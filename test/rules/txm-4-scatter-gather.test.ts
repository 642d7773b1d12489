import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, testEngine, type TransactionInput } from '../helpers.js';

let n = 0;
/** `from` pays `to` (a user, or an external party when undefined) `amount` EUR at `at`. */
function transfer(at: number, from: string, to: string | undefined, amount = 2_000): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `txm4-${String(n).padStart(6, '0')}`,
    timestamp: at,
    originUserId: from,
    ...(to === undefined ? {} : { destinationUserId: to }),
    originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
  };
}

async function engineWith(parameters: Record<string, unknown> = {}, filters?: Record<string, unknown>) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId: 'TXM-4', parameters, ...(filters === undefined ? {} : { filters }) });
  return engine;
}

type Result = { hitRules: { ruleId?: string; ruleDescription?: string; ruleHitMeta?: { hitDirections?: string[]; evidence?: unknown[] } }[] };
const hitsOf = (r: Result) => r.hitRules.filter((h) => h.ruleId === 'TXM-4').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** [from, to, time after T0, amount EUR]; the last step is the transaction whose hits are checked. */
type Step = readonly [from: string, to: string | undefined, at: number, amount?: number];
/** `source` pays each of `through` (hours 0, 1, …), then each pays `collector` (from hour 10 on). */
const scatterGather = (source: string, through: string[], collector: string): Step[] => [
  ...through.map((m, i): Step => [source, m, i * HOUR]),
  ...through.map((m, i): Step => [m, collector, (10 + i) * HOUR]),
];

describe('TXM-4 Scatter-gather through shared counterparties', () => {
  const rows: { name: string; parameters?: Record<string, unknown>; filters?: Record<string, unknown>; steps: Step[]; expected: string[] }[] = [
    {
      name: 'three accounts fed by one source paying one collector hit the collector',
      steps: scatterGather('s', ['a', 'b', 'c'], 'k'),
      expected: ['DESTINATION'],
    },
    { name: 'two accounts are below the default of 3', steps: scatterGather('s', ['a', 'b'], 'k'), expected: [] },
    {
      name: 'two accounts hit with minIntermediaries 2',
      parameters: { minIntermediaries: 2 },
      steps: scatterGather('s', ['a', 'b'], 'k'),
      expected: ['DESTINATION'],
    },
    {
      name: 'the current transfer counts as one of the payments to the collector',
      steps: [...scatterGather('s', ['a', 'b'], 'k'), ['s', 'c', 2 * HOUR], ['c', 'k', 20 * HOUR]],
      expected: ['DESTINATION'],
    },
    {
      name: 'an account paid by the source only after it paid the collector does not count',
      steps: [
        ['s', 'a', 0],
        ['s', 'b', HOUR],
        ['c', 'k', 2 * HOUR],
        ['s', 'c', 3 * HOUR],
        ['a', 'k', 4 * HOUR],
        ['b', 'k', 5 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'a later payment to the collector after the source paid counts (its latest payment is read)',
      steps: [
        ['c', 'k', 0],
        ['s', 'a', HOUR],
        ['s', 'b', HOUR],
        ['s', 'c', HOUR],
        ['a', 'k', 4 * HOUR],
        ['b', 'k', 5 * HOUR],
        ['c', 'k', 6 * HOUR],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'a payment from the source at the same instant as the payment on is not earlier',
      steps: [
        ['s', 'a', 0],
        ['s', 'b', 0],
        ['s', 'c', 11 * HOUR],
        ['a', 'k', 10 * HOUR],
        ['b', 'k', 10 * HOUR],
        ['c', 'k', 11 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'different sources do not add up',
      steps: [
        ['s1', 'a', 0],
        ['s2', 'b', 0],
        ['s3', 'c', 0],
        ['a', 'k', HOUR],
        ['b', 'k', HOUR],
        ['c', 'k', HOUR],
      ],
      expected: [],
    },
    {
      name: 'the collector itself is no source (its money going round is a cycle)',
      steps: scatterGather('k', ['a', 'b', 'c'], 'k'),
      expected: [],
    },
    {
      name: 'one account paying twice counts once',
      steps: [
        ['s', 'a', 0],
        ['s', 'b', 0],
        ['a', 'k', HOUR],
        ['b', 'k', HOUR],
        ['a', 'k', 2 * HOUR],
      ],
      expected: [],
    },
    {
      name: "the source's first payment exactly at the window start counts (7 days, inclusive)",
      steps: [
        ['s', 'a', 0],
        ['s', 'b', HOUR],
        ['s', 'c', HOUR],
        ['a', 'k', 2 * HOUR],
        ['b', 'k', 2 * HOUR],
        ['c', 'k', 7 * DAY],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: "the source's first payment 1 ms before the window start does not",
      steps: [
        ['s', 'a', 0],
        ['s', 'b', HOUR],
        ['s', 'c', HOUR],
        ['a', 'k', 2 * HOUR],
        ['b', 'k', 2 * HOUR],
        ['c', 'k', 7 * DAY + 1],
      ],
      expected: [],
    },
    {
      name: "the cap on the collector: only its latest transfer and this one are read (a's payment drops out)",
      parameters: { maxTransfersPerAccount: 1 },
      steps: [...scatterGather('s', ['a', 'b'], 'k'), ['s', 'c', 2 * HOUR], ['c', 'k', 20 * HOUR]],
      expected: [],
    },
    {
      name: "the cap on an account: b's two later receipts hide the source's payment (2 read per account)",
      parameters: { maxTransfersPerAccount: 2 },
      steps: [
        ['s', 'a', 0],
        ['s', 'b', 0],
        ['s', 'c', 0],
        ['x', 'b', HOUR],
        ['y', 'b', HOUR],
        ['a', 'k', 2 * HOUR],
        ['b', 'k', 2 * HOUR],
        ['c', 'k', 2 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'a self-transfer is not checked',
      steps: [...scatterGather('s', ['a', 'b', 'c'], 'k'), ['k', 'k', 20 * HOUR]],
      expected: [],
    },
    {
      name: 'a transfer to an external party is not checked',
      steps: [...scatterGather('s', ['a', 'b', 'c'], 'k'), ['a', undefined, 20 * HOUR]],
      expected: [],
    },
    {
      name: 'historical amount filter: small payments from the source do not link',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      steps: [
        ['s', 'a', 0, 50],
        ['s', 'b', 0, 5_000],
        ['s', 'c', 0, 5_000],
        ['a', 'k', HOUR],
        ['b', 'k', HOUR],
        ['c', 'k', HOUR],
      ],
      expected: [],
    },
    {
      name: 'historical amount filter: amounts at the minimum link',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      steps: [
        ['s', 'a', 0, 1_000],
        ['s', 'b', 0, 1_000],
        ['s', 'c', 0, 1_000],
        ['a', 'k', HOUR, 1_000],
        ['b', 'k', HOUR, 1_000],
        ['c', 'k', HOUR, 1_000],
      ],
      expected: ['DESTINATION'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters, row.filters);
      let last: Result | undefined;
      for (const [from, to, at, amount] of row.steps) last = await engine.createTransaction(transfer(T0 + at, from, to, amount));
      expect(hitsOf(last as Result)).toEqual(row.expected);
    });
  }

  it('renders the count, the window and the limit into the description, and gives them as evidence', async () => {
    const engine = await engineWith();
    let r: Result | undefined;
    const steps = scatterGather('s', ['a', 'b', 'c', 'd'], 'k');
    for (const [from, to, at] of steps) r = await engine.createTransaction(transfer(T0 + at, from, to));
    const hit = (r as Result).hitRules.find((h) => h.ruleId === 'TXM-4');
    expect(hit?.ruleDescription).toBe('The receiver was paid by 4 users who had each received money from one common source, within 7 days (at least 3).');
    const end = T0 + (steps.at(-1) as Step)[2];
    expect(hit?.ruleHitMeta).toEqual({
      hitDirections: ['DESTINATION'],
      evidence: [
        {
          direction: 'DESTINATION',
          kind: 'sharedSourceCount',
          value: 4,
          comparison: '>=',
          limit: 3,
          window: { start: end - 7 * DAY, end, units: 7, granularity: 'day', rolling: true },
        },
      ],
    });
  });
});

type Transfer = { id: string; at: number; from: string; to: string };

/** The brute-force count: per source, the collector's capped senders (this one included) that the source paid, capped, before their latest payment to the collector. */
function sharedSourceCount(history: readonly Transfer[], current: Transfer, cap: number): number {
  const received = (user: string) =>
    history
      .filter((h) => h.to === user && h.id !== current.id && h.at >= current.at - 7 * DAY && h.at <= current.at)
      .sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1))
      .slice(-cap);
  const latest = new Map<string, number>();
  for (const h of [...received(current.to), current]) if (h.from !== current.to) latest.set(h.from, Math.max(latest.get(h.from) ?? -Infinity, h.at));
  let most = 0;
  for (const source of new Set(history.map((h) => h.from))) {
    if (source === current.to) continue;
    const fed = [...latest].filter(([m, last]) => m !== source && received(m).some((h) => h.from === source && h.at < last));
    most = Math.max(most, fed.length);
  }
  return most;
}

describe('properties', () => {
  const USERS = ['s', 'a', 'b', 'c', 'k'];
  const step = fc.record({ from: fc.constantFrom(...USERS), to: fc.constantFrom(...USERS), gapHours: fc.constantFrom(0, 1, 5, 30, 100) });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 2, max: 4 }), fc.constantFrom(1, 2, 3, 16)], { numRuns: 60 })(
    'hits the receiver exactly when a brute-force count of intermediaries fed by one source reaches the minimum, with that count as evidence',
    async (steps, minIntermediaries, cap) => {
      const engine = await engineWith({ minIntermediaries, maxTransfersPerAccount: cap });
      const history: Transfer[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapHours * HOUR;
        const t = transfer(at, s.from, s.to);
        const current = { id: t.transactionId, at, from: s.from, to: s.to };
        history.push(current);
        const r = await engine.createTransaction(t);
        const count = sharedSourceCount(history, current, cap);
        const expected = s.from !== s.to && count >= minIntermediaries ? ['DESTINATION'] : [];
        expect(hitsOf(r)).toEqual(expected);
        if (expected.length > 0) {
          const window = { start: at - 7 * DAY, end: at, units: 7, granularity: 'day', rolling: true };
          expect(r.hitRules.find((h) => h.ruleId === 'TXM-4')?.ruleHitMeta?.evidence).toEqual([
            { direction: 'DESTINATION', kind: 'sharedSourceCount', value: count, comparison: '>=', limit: minIntermediaries, window },
          ]);
        }
      }
    },
  );
});
