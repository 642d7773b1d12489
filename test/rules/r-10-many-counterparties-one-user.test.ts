import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
/** `sender` pays `receiver` (either may be absent: a user-less side is paid by / pays a card). */
function pay(at: number, sender: string | undefined, receiver: string | undefined): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r10-${n}`,
    timestamp: at,
    ...(sender === undefined ? { originPaymentDetails: { method: 'CARD', cardFingerprint: 'src' } } : { originUserId: sender }),
    ...(receiver === undefined ? { destinationPaymentDetails: { method: 'CARD', cardFingerprint: 'dst' } } : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({
    ruleId: 'R-10',
    parameters: { sendersCount: 2, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, ...parameters },
  });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-10').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [sender: string | undefined, receiver: string | undefined];

describe('R-10 Too many counterparties transacting with a single user', () => {
  // The limit is 2 (strict >): a third distinct counterparty hits.
  const rows: { name: string; steps: Step[]; expected: string[] }[] = [
    { name: 'the first transaction never hits with limit 2', steps: [['a', 'x']], expected: [] },
    {
      name: 'exactly at the limit (2 counterparties) does not hit',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
      ],
      expected: [],
    },
    {
      name: 'a third counterparty the user paid hits the sender',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['a', 'z'],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'the same counterparty twice counts once',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['a', 'x'],
      ],
      expected: [],
    },
    {
      name: 'counterparties the user received from count too (both directions)',
      steps: [
        ['x', 'a'],
        ['y', 'a'],
        ['a', 'z'],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'a counterparty seen in both directions counts once',
      steps: [
        ['x', 'a'],
        ['a', 'x'],
        ['a', 'y'],
      ],
      expected: [],
    },
    {
      name: 'a third sender to the receiver hits the receiver',
      steps: [
        ['x', 'b'],
        ['y', 'b'],
        ['z', 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: "the receiver's own payments count for the receiver",
      steps: [
        ['b', 'x'],
        ['b', 'y'],
        ['z', 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'both users over the limit hit both sides',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['p', 'b'],
        ['q', 'b'],
        ['a', 'b'],
      ],
      expected: ['ORIGIN', 'DESTINATION'],
    },
    {
      name: "other users' counterparties do not count",
      steps: [
        ['c', 'x'],
        ['c', 'y'],
        ['a', 'z'],
      ],
      expected: [],
    },
    {
      name: 'a self-transfer adds no counterparty',
      steps: [
        ['a', 'a'],
        ['a', 'x'],
        ['a', 'y'],
      ],
      expected: [],
    },
    {
      name: 'a self-transfer is not its own counterparty, even as the current transaction',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['a', 'a'],
      ],
      expected: [],
    },
    {
      name: 'a self-transfer after three counterparties hits both sides of its one user',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['z', 'a'],
        ['a', 'a'],
      ],
      expected: ['ORIGIN', 'DESTINATION'],
    },
    {
      name: 'a user-less beneficiary is no counterparty',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['a', undefined],
      ],
      expected: [],
    },
    {
      name: 'a payment to a user-less beneficiary still sees the earlier counterparties',
      steps: [
        ['a', 'x'],
        ['a', 'y'],
        ['z', 'a'],
        ['a', undefined],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'a transaction from a user-less payer checks the receiver only',
      steps: [
        ['x', 'b'],
        ['y', 'b'],
        ['z', 'b'],
        [undefined, 'b'],
      ],
      expected: ['DESTINATION'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      let last: string[] = [];
      for (const [i, [s, r]] of row.steps.entries()) last = hitsOf(await engine.createTransaction(pay(T0 + i, s, r)));
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a counterparty exactly at the window start (30 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a counterparty 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(pay(T0 - 30 * DAY + row.offset, 'a', 'x'));
      await engine.createTransaction(pay(T0 - 10, 'a', 'y'));
      expect(hitsOf(await engine.createTransaction(pay(T0, 'a', 'z')))).toEqual(row.expected);
    });
  }

  it('a later-timestamped transaction (arrived earlier) is outside the window', async () => {
    const engine = await engineWith();
    await engine.createTransaction(pay(T0 + 1, 'a', 'x'));
    await engine.createTransaction(pay(T0 - 1, 'a', 'y'));
    expect(hitsOf(await engine.createTransaction(pay(T0, 'a', 'z')))).toEqual([]);
  });

  it('an event on the current transaction does not count its counterparty twice', async () => {
    const engine = await engineWith({ sendersCount: 1 });
    await engine.createTransaction(pay(T0, 'a', 'x'));
    const t = pay(T0 + 1, 'a', 'x');
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 2, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('limit 0: the first transaction with a counterparty hits', async () => {
    const engine = await engineWith({ sendersCount: 0 });
    expect(hitsOf(await engine.createTransaction(pay(T0, 'a', 'b')))).toEqual(['ORIGIN', 'DESTINATION']);
  });

  it('renders side, count, window and limit into the description', async () => {
    const engine = await engineWith();
    await engine.createTransaction(pay(T0, 'a', 'x'));
    await engine.createTransaction(pay(T0 + 1, 'a', 'y'));
    const r = await engine.createTransaction(pay(T0 + 2, 'a', 'z'));
    expect(r.hitRules.find((h) => h.ruleId === 'R-10')?.ruleDescription).toBe(
      'Sender transacted with 3 distinct counterparties in 30 days, more than the limit of 2.',
    );
  });

  it('uses the defaults (4 counterparties in 30 days) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-10' });
    const results: string[][] = [];
    for (let i = 1; i <= 5; i += 1) results.push(hitsOf(await engine.createTransaction(pay(T0 + i * DAY, 'a', `u${i}`))));
    expect(results).toEqual([[], [], [], [], ['ORIGIN']]);
  });

  const badRows = [
    { name: 'a negative limit', parameters: { sendersCount: -1 }, path: '/parameters/sendersCount' },
    { name: 'a fractional limit', parameters: { sendersCount: 1.5 }, path: '/parameters/sendersCount' },
    { name: 'a zero-unit window', parameters: { timeWindow: { units: 0, granularity: 'day' } }, path: '/parameters/timeWindow/units' },
    { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() =>
        engineFor().createRuleInstance({ ruleId: 'R-10', parameters: { sendersCount: 2, timeWindow: { units: 1, granularity: 'day' }, ...row.parameters } }),
      );
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const USERS = ['u1', 'u2', 'u3', 'u4', 'u5', undefined] as const;
  const step = fc.record({
    sender: fc.constantFrom(...USERS),
    receiver: fc.constantFrom(...USERS),
    gapDays: fc.integer({ min: 0, max: 12 }),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 4 })], { numRuns: 50 })(
    "hits each side exactly when the brute-force distinct counterparties of that side's user in 30 days exceed the limit",
    async (steps, limit) => {
      const engine = await engineWith({ sendersCount: limit });
      const history: { at: number; sender: string | undefined; receiver: string | undefined }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapDays * DAY;
        history.push({ at, sender: s.sender, receiver: s.receiver });
        const r = await engine.createTransaction(pay(at, s.sender, s.receiver));
        const counterparties = (user: string) => {
          const seen = new Set<string | undefined>();
          for (const h of history) {
            if (h.at < at - 30 * DAY) continue;
            if (h.sender === user) seen.add(h.receiver);
            if (h.receiver === user) seen.add(h.sender);
          }
          seen.delete(undefined);
          seen.delete(user);
          return seen.size;
        };
        const expected: string[] = [];
        if (s.sender !== undefined && counterparties(s.sender) > limit) expected.push('ORIGIN');
        if (s.receiver !== undefined && counterparties(s.receiver) > limit) expected.push('DESTINATION');
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});
