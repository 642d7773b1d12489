import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { toScaled } from '../../src/domain/money.js';
import { DAY, T0, errorOf, testEngine } from '../helpers.js';

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

const engineFor = () => testEngine().engine;

const ROLLING_30_DAYS = { units: 30, granularity: 'day', rollingBasis: true };

let n = 0;
/**
 * A `type` transaction from `sender` to `receiver` (either may be absent: an external party).
 * `amount` is both sides' amount, or [origin, destination] when they differ.
 */
function flow(at: number, type: string, sender: string | undefined, receiver: string | undefined, amount: number | [number, number], currency = 'USD') {
  n += 1;
  const [origin, destination] = typeof amount === 'number' ? [amount, amount] : amount;
  return {
    type,
    transactionId: `r41-${n}`,
    timestamp: at,
    ...(sender === undefined ? {} : { originUserId: sender }),
    ...(receiver === undefined ? {} : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: origin, transactionCurrency: currency },
    destinationAmountDetails: { transactionAmount: destination, transactionCurrency: currency },
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-41',
    parameters: {
      timeWindow: ROLLING_30_DAYS,
      outflowTransactionTypes: ['WITHDRAWAL'],
      inflowTransactionTypes: ['DEPOSIT'],
      outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO',
      ...parameters,
    },
  });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-41').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [type: string, sender: string | undefined, receiver: string | undefined, amount: number | [number, number], currency?: string];
const D = (amount: number | [number, number], receiver = 'alice', sender?: string): Step => ['DEPOSIT', sender, receiver, amount];
const W = (amount: number | [number, number], sender = 'alice', receiver?: string): Step => ['WITHDRAWAL', sender, receiver, amount];

describe("R-41 Transaction's sending volume compared to receiving volume", () => {
  const LTE = { outflowInflowComparator: 'LESS_THAN_OR_EQUAL_TO' };
  const rows: { name: string; parameters?: Record<string, unknown>; steps: Step[]; expected: string[] }[] = [
    { name: 'a first withdrawal (no inflow) never hits', steps: [W(100)], expected: [] },
    { name: 'a deposit without any withdrawal never hits', steps: [D(100)], expected: [] },
    { name: 'withdrawals equal to deposits hit the sender (≥ is inclusive)', steps: [D(100), W(100)], expected: ['ORIGIN'] },
    { name: 'withdrawals one cent below deposits do not hit', steps: [D(100), W(99.99)], expected: [] },
    { name: 'withdrawals reaching deposits in steps hit (the current one included)', steps: [D(100), W(99.99), W(0.01)], expected: ['ORIGIN'] },
    { name: 'exact decimals: 0.1 + 0.2 withdrawn reaches 0.3 deposited', steps: [D(0.3), W(0.1), W(0.2)], expected: ['ORIGIN'] },
    { name: 'a deposit checks the receiver: outflow still at or above the new inflow', steps: [W(100), D(100)], expected: ['DESTINATION'] },
    { name: 'a deposit pushing inflow one cent above outflow does not hit', steps: [W(100), D(100.01)], expected: [] },
    { name: 'received transactions of an unlisted type are no inflow', steps: [['TRANSFER', 'bob', 'alice', 100], W(100)], expected: [] },
    { name: "a deposit the user SENT is not the user's inflow", steps: [D(100, 'bob', 'alice'), W(100)], expected: [] },
    { name: "a withdrawal the user RECEIVED is not the user's outflow", steps: [W(100, 'bob', 'alice'), D(100)], expected: [] },
    { name: 'a transaction of a type in neither list is not checked', steps: [D(100), W(100), ['TRANSFER', 'alice', 'bob', 5]], expected: [] },
    { name: "other users' flows do not count", steps: [D(100, 'bob'), W(100)], expected: [] },
    { name: 'each side reads its own amount: origin for outflow, destination for inflow', steps: [D([50, 100]), W([100, 40])], expected: ['ORIGIN'] },
    { name: 'the same currency converts the same way: 100 EUR out equals 100 EUR in', steps: [['DEPOSIT', undefined, 'alice', 100, 'EUR'], ['WITHDRAWAL', 'alice', undefined, 100, 'EUR']], expected: ['ORIGIN'] },
    { name: 'volumes are compared in the base currency: 100 USD out is below 100 EUR in', steps: [['DEPOSIT', undefined, 'alice', 100, 'EUR'], W(100)], expected: [] },
    { name: '≤: outflow below inflow hits the receiver of the deposit', parameters: LTE, steps: [W(50), D(100)], expected: ['DESTINATION'] },
    { name: '≤: equal volumes hit (inclusive)', parameters: LTE, steps: [D(100), W(100)], expected: ['ORIGIN'] },
    { name: '≤: outflow one cent above inflow does not hit', parameters: LTE, steps: [D(100), W(100.01)], expected: [] },
    {
      name: 'a self-transfer of a type in both lists is outflow and inflow of its user: both sides hit',
      parameters: { outflowTransactionTypes: ['TRANSFER'], inflowTransactionTypes: ['TRANSFER'] },
      steps: [['TRANSFER', 'alice', 'alice', 100]],
      expected: ['ORIGIN', 'DESTINATION'],
    },
    {
      name: 'several types per list add up',
      parameters: { outflowTransactionTypes: ['WITHDRAWAL', 'EXTERNAL_PAYMENT'], inflowTransactionTypes: ['DEPOSIT', 'REFUND'] },
      steps: [D(60), ['REFUND', 'shop', 'alice', 40], ['EXTERNAL_PAYMENT', 'alice', 'shop', 50], W(49.99)],
      expected: [],
    },
    {
      name: 'several types per list add up to the boundary',
      parameters: { outflowTransactionTypes: ['WITHDRAWAL', 'EXTERNAL_PAYMENT'], inflowTransactionTypes: ['DEPOSIT', 'REFUND'] },
      steps: [D(60), ['REFUND', 'shop', 'alice', 40], ['EXTERNAL_PAYMENT', 'alice', 'shop', 50], W(50)],
      expected: ['ORIGIN'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters);
      let last: string[] = [];
      for (const [i, [type, s, r, amount, currency]] of row.steps.entries()) {
        last = hitsOf(await engine.createTransaction(flow(T0 + i, type, s, r, amount, currency)));
      }
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a deposit exactly at the window start (30 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a deposit 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(flow(T0 - 30 * DAY + row.offset, ...D(100)));
      expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual(row.expected);
    });
  }

  it('a later-timestamped deposit (arrived earlier) is outside the window', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0 + 1, ...D(100)));
    expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual([]);
  });

  it('an event raising a past deposit replaces its amount in the inflow', async () => {
    const engine = await engineWith();
    const deposit = flow(T0, ...D(100));
    await engine.createTransaction(deposit);
    await engine.createTransactionEvent({
      transactionId: deposit.transactionId,
      timestamp: T0 + 1,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { destinationAmountDetails: { transactionAmount: 100.01, transactionCurrency: 'USD' } },
    });
    expect(hitsOf(await engine.createTransaction(flow(T0 + 2, ...W(100))))).toEqual([]);
    expect(hitsOf(await engine.createTransaction(flow(T0 + 3, ...W(0.01))))).toEqual(['ORIGIN']);
  });

  it('an event on the current withdrawal does not count it twice', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0, ...D(100)));
    const withdrawal = flow(T0 + 1, ...W(50));
    expect(hitsOf(await engine.createTransaction(withdrawal))).toEqual([]);
    // Counted twice, 50 + 50 would reach 100.
    const ev = await engine.createTransactionEvent({ transactionId: withdrawal.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('renders side, volumes, relation and window into the description', async () => {
    const engine = await engineWith();
    await engine.createTransaction(flow(T0, ...D(100)));
    const r = await engine.createTransaction(flow(T0 + 1, ...W(100.5)));
    expect(r.hitRules.find((h) => h.ruleId === 'R-41')?.ruleDescription).toBe('Sender outflow of 100.50 USD is at or above the inflow of 100.00 USD in 30 days.');
  });

  it('uses the defaults (withdrawals ≥ deposits in 30 days) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-41' });
    await engine.createTransaction(flow(T0 - 29 * DAY, ...D(100)));
    expect(hitsOf(await engine.createTransaction(flow(T0, ...W(100))))).toEqual(['ORIGIN']);
  });

  const badRows = [
    { name: 'an empty outflow type list', parameters: { outflowTransactionTypes: [] }, path: '/parameters/outflowTransactionTypes' },
    { name: 'an empty inflow type', parameters: { inflowTransactionTypes: [''] }, path: '/parameters/inflowTransactionTypes/0' },
    { name: 'a repeated type', parameters: { inflowTransactionTypes: ['DEPOSIT', 'DEPOSIT'] }, path: '/parameters/inflowTransactionTypes' },
    { name: 'an unknown comparator', parameters: { outflowInflowComparator: 'GREATER_THAN' }, path: '/parameters/outflowInflowComparator' },
    { name: 'a zero-unit window', parameters: { timeWindow: { units: 0, granularity: 'day' } }, path: '/parameters/timeWindow/units' },
    {
      name: 'the (unsupported) 3DS outflow guard',
      parameters: { outflow3dsDonePercentageThreshold: { value: 60, comparator: 'GREATER_THAN_OR_EQUAL_TO' } },
      path: '/parameters/outflow3dsDonePercentageThreshold',
    },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() =>
        engineFor().createRuleInstance({
          ruleId: 'R-41',
          parameters: { timeWindow: ROLLING_30_DAYS, outflowTransactionTypes: ['WITHDRAWAL'], inflowTransactionTypes: ['DEPOSIT'], outflowInflowComparator: 'GREATER_THAN_OR_EQUAL_TO', ...row.parameters },
        }),
      );
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const PARTIES = ['alice', 'bob', undefined] as const;
  const AMOUNTS = [0, 0.01, 0.1, 0.2, 0.3, 99.99, 100, 100.01];
  const step = fc.record({
    type: fc.constantFrom('DEPOSIT', 'WITHDRAWAL', 'TRANSFER'),
    sender: fc.constantFrom(...PARTIES),
    receiver: fc.constantFrom(...PARTIES),
    origin: fc.constantFrom(...AMOUNTS),
    destination: fc.constantFrom(...AMOUNTS),
    gapDays: fc.integer({ min: 0, max: 12 }),
  });
  const lists = fc.subarray(['DEPOSIT', 'WITHDRAWAL', 'TRANSFER'], { minLength: 1 });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), lists, lists, fc.constantFrom('GREATER_THAN_OR_EQUAL_TO', 'LESS_THAN_OR_EQUAL_TO')], { numRuns: 50 })(
    "hits each side exactly as a brute-force recomputation of the user's outflow and inflow in 30 days",
    async (steps, outTypes, inTypes, comparator) => {
      const engine = await engineWith({ outflowTransactionTypes: outTypes, inflowTransactionTypes: inTypes, outflowInflowComparator: comparator });
      const history: { at: number; type: string; sender: string | undefined; receiver: string | undefined; origin: bigint; destination: bigint }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapDays * DAY;
        history.push({ at, type: s.type, sender: s.sender, receiver: s.receiver, origin: toScaled(s.origin), destination: toScaled(s.destination) });
        const r = await engine.createTransaction(flow(at, s.type, s.sender, s.receiver, [s.origin, s.destination]));
        const verdict = (user: string) => {
          const inWindow = history.filter((h) => h.at >= at - 30 * DAY);
          const outs = inWindow.filter((h) => h.sender === user && outTypes.includes(h.type));
          const ins = inWindow.filter((h) => h.receiver === user && inTypes.includes(h.type));
          if (outs.length === 0 || ins.length === 0) return false;
          const outflow = outs.reduce((a, h) => a + h.origin, 0n);
          const inflow = ins.reduce((a, h) => a + h.destination, 0n);
          return comparator === 'GREATER_THAN_OR_EQUAL_TO' ? outflow >= inflow : outflow <= inflow;
        };
        const expected: string[] = [];
        if (s.sender !== undefined && outTypes.includes(s.type) && verdict(s.sender)) expected.push('ORIGIN');
        if (s.receiver !== undefined && inTypes.includes(s.type) && verdict(s.receiver)) expected.push('DESTINATION');
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});
