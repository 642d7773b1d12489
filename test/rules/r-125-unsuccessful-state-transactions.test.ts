import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { TransactionState } from '../../src/domain/enums.js';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
interface Tx {
  at: number;
  state?: string;
  origin?: string;
  destination?: string;
}
function build(t: Tx): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `state-${n}`,
    timestamp: t.at,
    originUserId: t.origin ?? 'alice',
    destinationUserId: t.destination ?? `shop-${n}`,
    ...(t.state === undefined ? {} : { transactionState: t.state as TransactionState }),
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR', country: 'DE' },
  };
}

async function engineWith(parameters: Record<string, unknown>) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-125',
    parameters: { threshold: 50, minimumTransactions: 3, checkSender: 'sending', checkReceiver: 'none', ...parameters },
  });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-125').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

const R = 'REFUNDED';
const S = 'SUCCESSFUL';

/** `states` are sent a millisecond apart, the last one at T0 (the current transaction). */
interface Row {
  name: string;
  parameters?: Record<string, unknown>;
  states: (string | undefined)[];
  expected: string[];
}

const rows: Row[] = [
  { name: 'exactly at the percentage (2 of 4 = 50 %) does not hit', states: [R, S, R, S], expected: [] },
  { name: 'one more refunded (3 of 5 = 60 %) hits', states: [R, S, R, S, R], expected: ['ORIGIN'] },
  { name: 'a successful current transaction still hits while the share is over', states: [R, R, S], expected: ['ORIGIN'] },
  { name: 'fewer transactions than minimumTransactions never hits, even at 100 %', states: [R, R], expected: [] },
  { name: 'exactly minimumTransactions transactions hits (≥)', states: [R, R, R], expected: ['ORIGIN'] },
  { name: 'minimumTransactions 0: a first refunded transaction hits', parameters: { minimumTransactions: 0 }, states: [R], expected: ['ORIGIN'] },
  {
    name: 'default 1 %: one refund among 99 transactions hits (1.0101 % > 1 %)',
    parameters: { threshold: 1 },
    states: [R, ...Array<string>(98).fill(S)],
    expected: ['ORIGIN'],
  },
  {
    name: 'default 1 %: one refund among 100 transactions does not hit (exactly 1 %)',
    parameters: { threshold: 1 },
    states: [R, ...Array<string>(99).fill(S)],
    expected: [],
  },
  { name: 'a state not in the list does not count', states: ['DECLINED', 'DECLINED', 'DECLINED'], expected: [] },
  { name: 'every listed state counts', parameters: { transactionStates: ['DECLINED', R] }, states: ['DECLINED', R, S], expected: ['ORIGIN'] },
  { name: 'a transaction without a state is CREATED', parameters: { transactionStates: ['CREATED'] }, states: [undefined, undefined, S], expected: ['ORIGIN'] },
  { name: 'an empty state list never hits', parameters: { transactionStates: [], threshold: 0, minimumTransactions: 0 }, states: [R], expected: [] },
  { name: 'threshold 100 never hits', parameters: { threshold: 100 }, states: [R, R, R], expected: [] },
];

describe('R-125 High percentage of unsuccesful state transactions', () => {
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters ?? {});
      let last: string[] = [];
      const k = row.states.length;
      for (const [i, state] of row.states.entries()) {
        last = hitsOf(await engine.createTransaction(build({ at: T0 - (k - 1 - i), ...(state === undefined ? {} : { state }) })));
      }
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a refunded transaction exactly at the window start (7 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a refunded transaction 1 ms before the window start does not count', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith({ minimumTransactions: 2 });
      await engine.createTransaction(build({ at: T0 - 7 * DAY + row.offset, state: R }));
      await engine.createTransaction(build({ at: T0 - 1, state: R }));
      // In: 2 refunded of 3 (66.7 %). Out: 1 of 2 (50 %).
      expect(hitsOf(await engine.createTransaction(build({ at: T0, state: S })))).toEqual(row.expected);
    });
  }

  it('a transaction refunded later counts as refunded from then on (and the refund event itself is evaluated with it)', async () => {
    const engine = await engineWith({});
    const a = build({ at: T0 - 3, state: S });
    await engine.createTransaction(a);
    await engine.createTransaction(build({ at: T0 - 2, state: R }));
    expect(hitsOf(await engine.createTransaction(build({ at: T0 - 1, state: S })))).toEqual([]); // 1 of 3
    const refund = await engine.createTransactionEvent({ transactionId: a.transactionId as string, timestamp: T0 - 0.5, transactionState: R });
    // The event re-evaluates `a` in its own window (ending at T0 − 3): it is the only one there.
    expect(hitsOf(refund)).toEqual([]);
    // Now 2 refunded of 4 (50 %), plus a refunded current one: 3 of 5.
    expect(hitsOf(await engine.createTransaction(build({ at: T0, state: R })))).toEqual(['ORIGIN']);
  });

  it('the refund event of the latest transaction hits on the refunded transaction itself', async () => {
    const engine = await engineWith({});
    await engine.createTransaction(build({ at: T0 - 2, state: R }));
    await engine.createTransaction(build({ at: T0 - 1, state: S }));
    const last = build({ at: T0, state: S });
    expect(hitsOf(await engine.createTransaction(last))).toEqual([]); // 1 of 3
    const ev = await engine.createTransactionEvent({ transactionId: last.transactionId as string, timestamp: T0 + 1, transactionState: R });
    expect(hitsOf(ev)).toEqual(['ORIGIN']); // 2 of 3, the transaction counted once
  });

  it('a transaction leaving a listed state stops counting', async () => {
    const engine = await engineWith({ transactionStates: ['PROCESSING'] });
    const a = build({ at: T0 - 2, state: 'PROCESSING' });
    await engine.createTransaction(a);
    await engine.createTransaction(build({ at: T0 - 1, state: 'PROCESSING' }));
    await engine.createTransactionEvent({ transactionId: a.transactionId as string, timestamp: T0 - 0.5, transactionState: S });
    // 1 PROCESSING of 3 (33 %): not over 50 %. Without the event it would be 2 of 3.
    expect(hitsOf(await engine.createTransaction(build({ at: T0, state: S })))).toEqual([]);
  });

  it("the receiver side counts the receiver's transactions", async () => {
    const engine = await engineWith({ checkSender: 'none', checkReceiver: 'receiving' });
    await engine.createTransaction(build({ at: T0 - 2, origin: 'x', destination: 'bob', state: R }));
    await engine.createTransaction(build({ at: T0 - 1, origin: 'y', destination: 'bob', state: R }));
    expect(hitsOf(await engine.createTransaction(build({ at: T0, destination: 'bob', state: S })))).toEqual(['DESTINATION']);
  });

  it('renders the counts into the description', async () => {
    const engine = await engineWith({});
    await engine.createTransaction(build({ at: T0 - 2, state: R }));
    await engine.createTransaction(build({ at: T0 - 1, state: R }));
    const r = await engine.createTransaction(build({ at: T0, state: S }));
    expect(r.hitRules[0]?.ruleDescription).toBe('Sender has 2 of 3 transactions in REFUNDED in 7 days, more than 50%.');
  });

  const invalid = [
    { name: 'an unknown state', parameters: { transactionStates: ['LOST'] }, path: '/parameters/transactionStates/0' },
    { name: 'a threshold over 100', parameters: { threshold: 100.5 }, path: '/parameters/threshold' },
    { name: 'a negative minimumTransactions', parameters: { minimumTransactions: -1 }, path: '/parameters/minimumTransactions' },
    { name: 'an unknown parameter', parameters: { sameAmount: true }, path: '/parameters/sameAmount' },
  ];
  for (const row of invalid) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const engine = engineFor();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'R-125', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details.map((d) => d.path)).toContain(row.path);
    });
  }
});

describe('properties', () => {
  test.prop(
    [
      fc.array(fc.constantFrom(R, S, 'DECLINED', 'CREATED'), { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom(0, 10, 33.33, 50, 66.67, 100),
    ],
    { numRuns: 50 },
  )('hits exactly as a brute-force percentage over the window says', async (states, minimum, threshold) => {
    const engine = await engineWith({ minimumTransactions: minimum, threshold, transactionStates: [R, 'DECLINED'] });
    let total = 0;
    let matched = 0;
    for (const [i, state] of states.entries()) {
      total += 1;
      if (state === R || state === 'DECLINED') matched += 1;
      // threshold has at most 2 decimals: compare in hundredths of a percent, as integers.
      const expected = total >= minimum && matched * 10_000 > Math.round(threshold * 100) * total;
      const r = await engine.createTransaction(build({ at: T0 + i * 60_000, state }));
      expect(hitsOf(r)).toEqual(expected ? ['ORIGIN'] : []);
    }
  });
});
