import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, HOUR, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

let n = 0;
/** `from` pays `to` (a user, or an external party when undefined) `amount` EUR at `at`. */
function transfer(at: number, from: string, to: string | undefined, amount = 5_000): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `txm2-${String(n).padStart(6, '0')}`,
    timestamp: at,
    originUserId: from,
    ...(to === undefined ? {} : { destinationUserId: to }),
    originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
  };
}

async function engineWith(parameters: Record<string, unknown> = {}, filters?: Record<string, unknown>) {
  const { engine } = testEngine();
  await engine.createRuleInstance({ ruleId: 'TXM-2', parameters, ...(filters === undefined ? {} : { filters }) });
  return engine;
}

type Result = { hitRules: { ruleId?: string; ruleDescription?: string; ruleHitMeta?: { hitDirections?: string[]; evidence?: unknown[] } }[] };
const hitsOf = (r: Result) => r.hitRules.filter((h) => h.ruleId === 'TXM-2').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** [from, to, time after T0, amount EUR]; the last step is the transaction whose hits are checked. */
type Step = readonly [from: string, to: string | undefined, at: number, amount?: number];
const BOTH = ['ORIGIN', 'DESTINATION'];
/** A path a → b → … of transfers one hour apart starting at T0 + `start`. */
const chain = (users: string[], start = 0): Step[] => users.slice(1).map((to, i) => [users[i] as string, to, start + i * HOUR]);

describe('TXM-2 Funds returned to their origin (cycle)', () => {
  const rows: { name: string; parameters?: Record<string, unknown>; filters?: Record<string, unknown>; steps: Step[]; expected: string[] }[] = [
    { name: 'a three-transfer cycle hits both sides of the closing transfer', steps: chain(['a', 'b', 'c', 'a']), expected: BOTH },
    { name: 'a four-transfer cycle hits (maxHops 4)', steps: chain(['a', 'b', 'c', 'd', 'a']), expected: BOTH },
    { name: 'a five-transfer cycle does not hit with maxHops 4', steps: chain(['a', 'b', 'c', 'd', 'e', 'a']), expected: [] },
    { name: 'a five-transfer cycle hits with maxHops 5', parameters: { maxHops: 5 }, steps: chain(['a', 'b', 'c', 'd', 'e', 'a']), expected: BOTH },
    { name: 'a four-transfer cycle does not hit with maxHops 3', parameters: { maxHops: 3 }, steps: chain(['a', 'b', 'c', 'd', 'a']), expected: [] },
    { name: 'money sent straight back is a two-transfer cycle', steps: chain(['a', 'b', 'a']), expected: BOTH },
    { name: 'a chain that does not return to its origin does not hit', steps: chain(['a', 'b', 'c', 'd']), expected: [] },
    {
      name: 'a link earlier than the one before it breaks the path (b paid c before a paid b)',
      steps: [
        ['b', 'c', 0],
        ['a', 'b', HOUR],
        ['c', 'a', 2 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'links at the same instant do not follow each other (strictly later)',
      steps: [
        ['a', 'b', HOUR],
        ['b', 'c', HOUR],
        ['c', 'a', 2 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'the closing transfer may be at the instant of the last link (windows end inclusive)',
      steps: [
        ['a', 'b', 0],
        ['b', 'c', HOUR],
        ['c', 'a', HOUR],
      ],
      expected: BOTH,
    },
    {
      name: 'the first link exactly at the window start counts (5 days, inclusive)',
      steps: [
        ['a', 'b', 0],
        ['b', 'c', HOUR],
        ['c', 'a', 5 * DAY],
      ],
      expected: BOTH,
    },
    {
      name: 'the first link 1 ms before the window start does not',
      steps: [
        ['a', 'b', 0],
        ['b', 'c', HOUR],
        ['c', 'a', 5 * DAY + 1],
      ],
      expected: [],
    },
    {
      name: 'a loan repaid 7 days later is outside the default window',
      steps: [
        ['a', 'b', 0],
        ['b', 'a', 7 * DAY],
      ],
      expected: [],
    },
    {
      name: "the fan-out cap cuts a path: b's later transfer to d hides its transfer to c (1 followed per account)",
      parameters: { maxTransfersPerAccount: 1 },
      steps: [
        ['a', 'b', 0],
        ['b', 'c', HOUR],
        ['b', 'd', 2 * HOUR],
        ['c', 'a', 3 * HOUR],
      ],
      expected: [],
    },
    {
      name: 'with 2 followed per account the same path is found',
      parameters: { maxTransfersPerAccount: 2 },
      steps: [
        ['a', 'b', 0],
        ['b', 'c', HOUR],
        ['b', 'd', 2 * HOUR],
        ['c', 'a', 3 * HOUR],
      ],
      expected: BOTH,
    },
    { name: 'a self-transfer is no cycle', steps: [['a', 'a', 0]], expected: [] },
    {
      name: 'a self-transfer on the way neither breaks nor closes the cycle',
      steps: [
        ['a', 'b', 0],
        ['b', 'b', HOUR],
        ['b', 'c', 2 * HOUR],
        ['c', 'a', 3 * HOUR],
      ],
      expected: BOTH,
    },
    {
      name: 'a transfer to an external party (no destination user) is not checked',
      steps: [
        ['a', 'b', 0],
        ['b', undefined, HOUR],
      ],
      expected: [],
    },
    {
      name: 'historical amount filter: a small link is no link',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      steps: [
        ['a', 'b', 0, 5_000],
        ['b', 'c', HOUR, 999.99],
        ['c', 'a', 2 * HOUR, 5_000],
      ],
      expected: [],
    },
    {
      name: 'historical amount filter: links at the minimum (1,000.00) count',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      steps: [
        ['a', 'b', 0, 1_000],
        ['b', 'c', HOUR, 1_000],
        ['c', 'a', 2 * HOUR, 1_000],
      ],
      expected: BOTH,
    },
    {
      name: 'historical amount filter: a small closing transfer does not hit',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      steps: [
        ['a', 'b', 0, 5_000],
        ['b', 'c', HOUR, 5_000],
        ['c', 'a', 2 * HOUR, 10],
      ],
      expected: [],
    },
    {
      name: 'historical amount filter: small payments around the same circle are skipped, the big cycle found',
      filters: { transactionAmountRangeHistorical: { EUR: { min: 1_000 } } },
      parameters: { maxTransfersPerAccount: 1 },
      steps: [
        ['a', 'b', 0, 5_000],
        ['b', 'c', HOUR, 4_900],
        ['b', 'd', 2 * HOUR, 20],
        ['c', 'a', 3 * HOUR, 4_800],
      ],
      expected: BOTH,
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

  it('an event moving a past link out of the historical states breaks the cycle', async () => {
    const engine = await engineWith({}, { transactionStatesHistorical: ['SUCCESSFUL'] });
    const link = { ...transfer(T0 + HOUR, 'b', 'c'), transactionState: 'SUCCESSFUL' };
    await engine.createTransaction({ ...transfer(T0, 'a', 'b'), transactionState: 'SUCCESSFUL' } as TransactionInput);
    await engine.createTransaction(link as TransactionInput);
    await engine.createTransactionEvent({ transactionId: link.transactionId, timestamp: T0 + 2 * HOUR, transactionState: 'REFUNDED' });
    const r = await engine.createTransaction({ ...transfer(T0 + 3 * HOUR, 'c', 'a'), transactionState: 'SUCCESSFUL' } as TransactionInput);
    expect(hitsOf(r)).toEqual([]);
  });

  it('renders the cycle length and the window into the description, and gives them against maxHops as evidence on both sides', async () => {
    const engine = await engineWith();
    let r: Result | undefined;
    for (const [from, to, at] of chain(['a', 'b', 'c', 'd', 'a'])) r = await engine.createTransaction(transfer(T0 + at, from, to));
    const hit = (r as Result).hitRules.find((h) => h.ruleId === 'TXM-2');
    expect(hit?.ruleDescription).toBe('The transfer closes a cycle of 4 transfers back to the account the money started from, within 5 days.');
    const end = T0 + 3 * HOUR;
    const window = { start: end - 5 * DAY, end, units: 5, granularity: 'day', rolling: true };
    expect(hit?.ruleHitMeta?.evidence).toEqual(BOTH.map((direction) => ({ direction, kind: 'cycleLength', value: 4, comparison: '<=', limit: 4, window })));
  });

  it('refuses parameters that would read more than 100,000 transfers per transaction', async () => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createRuleInstance({ ruleId: 'TXM-2', parameters: { maxHops: 5, maxTransfersPerAccount: 32 } }));
    expect(error.code).toBe('INVALID_PARAMETERS');
    expect(error.details).toEqual([expect.objectContaining({ path: '/parameters/maxTransfersPerAccount', code: 'too-complex' })]);
    // 16 + 256 + 4,096 + 65,536 = 69,904 transfers: allowed.
    await expect(engine.createRuleInstance({ ruleId: 'TXM-2', parameters: { maxHops: 5, maxTransfersPerAccount: 16 } })).resolves.toBeDefined();
  });
});

/** The brute-force verdict: a time-increasing path dest → … → origin of at most maxHops − 1 earlier transfers, each account's latest `cap` in the window. */
function closesCycle(
  history: readonly { id: string; at: number; from: string; to: string }[],
  current: { id: string; at: number; from: string; to: string },
  maxHops: number,
  cap: number,
): boolean {
  if (current.from === current.to) return false;
  const sent = (user: string) =>
    history
      .filter((h) => h.from === user && h.id !== current.id && h.at >= current.at - 5 * DAY && h.at <= current.at)
      .sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1))
      .slice(-cap);
  const reaches = (user: string, after: number, edgesLeft: number): boolean =>
    edgesLeft > 0 && sent(user).some((h) => h.at > after && (h.to === current.from || reaches(h.to, h.at, edgesLeft - 1)));
  return reaches(current.to, Number.NEGATIVE_INFINITY, maxHops - 1);
}

describe('properties', () => {
  const USERS = ['a', 'b', 'c', 'd', 'e'];
  const step = fc.record({ from: fc.constantFrom(...USERS), to: fc.constantFrom(...USERS), gapHours: fc.constantFrom(0, 1, 5, 30, 60) });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 2, max: 5 }), fc.constantFrom(1, 2, 3, 16)], { numRuns: 60 })(
    'hits both sides exactly when a brute-force search over the earlier transfers finds the cycle',
    async (steps, maxHops, cap) => {
      const engine = await engineWith({ maxHops, maxTransfersPerAccount: cap });
      const history: { id: string; at: number; from: string; to: string }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapHours * HOUR;
        const t = transfer(at, s.from, s.to);
        const current = { id: t.transactionId, at, from: s.from, to: s.to };
        history.push(current);
        const r = await engine.createTransaction(t);
        expect(hitsOf(r)).toEqual(closesCycle(history, current, maxHops, cap) ? BOTH : []);
      }
    },
  );
});
