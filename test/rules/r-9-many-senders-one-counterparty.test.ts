import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
/** `sender` pays `receiver` (a user), or the card `card` of a user-less beneficiary when `receiver` is undefined. */
function pay(at: number, sender: string | undefined, receiver: string | undefined, card?: string): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r9-${n}`,
    timestamp: at,
    ...(sender === undefined ? {} : { originUserId: sender }),
    ...(receiver === undefined ? {} : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(card === undefined ? {} : { destinationPaymentDetails: { method: 'CARD', cardFingerprint: card } }),
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-9', parameters: { sendersCount: 2, ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-9').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [sender: string | undefined, receiver: string | undefined, card?: string];

describe('R-9 Too many users transacting with a single counterparty', () => {
  const rows: { name: string; steps: Step[]; expected: string[] }[] = [
    {
      name: 'exactly at the limit (2 senders) does not hit (strict >)',
      steps: [
        ['u1', 'm'],
        ['u2', 'm'],
      ],
      expected: [],
    },
    {
      name: 'one more sender (3 > 2) hits the destination',
      steps: [
        ['u1', 'm'],
        ['u2', 'm'],
        ['u3', 'm'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'the same sender twice counts once',
      steps: [
        ['u1', 'm'],
        ['u2', 'm'],
        ['u1', 'm'],
        ['u2', 'm'],
      ],
      expected: [],
    },
    {
      name: 'senders to another receiver do not count',
      steps: [
        ['u1', 'x'],
        ['u2', 'x'],
        ['u3', 'm'],
      ],
      expected: [],
    },
    {
      name: 'a sender-less transaction adds no sender',
      steps: [
        ['u1', 'm'],
        [undefined, 'm'],
        ['u2', 'm'],
      ],
      expected: [],
    },
    {
      name: 'a sender-less transaction still sees the earlier senders',
      steps: [
        ['u1', 'm'],
        ['u2', 'm'],
        ['u3', 'm'],
        [undefined, 'm'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'a user-less beneficiary is keyed by its destination identifier',
      steps: [
        ['u1', undefined, 'b'],
        ['u2', undefined, 'b'],
        ['u3', undefined, 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'another destination identifier does not count',
      steps: [
        ['u1', undefined, 'b'],
        ['u2', undefined, 'c'],
        ['u3', undefined, 'b'],
      ],
      expected: [],
    },
    {
      name: 'no receiver and no destination identifier gives no hit',
      steps: [
        ['u1', 'm'],
        ['u2', 'm'],
        ['u3', undefined],
      ],
      expected: [],
    },
    {
      name: 'a receiving user takes precedence over the identifier',
      steps: [
        ['u1', undefined, 'b'],
        ['u2', undefined, 'b'],
        ['u3', 'm', 'b'],
      ],
      expected: [],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      let last: string[] = [];
      for (const [i, [s, r, c]] of row.steps.entries()) last = hitsOf(await engine.createTransaction(pay(T0 + i, s, r, c)));
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a sender exactly at the window start (30 days) counts', offset: 0, expected: ['DESTINATION'] },
    { name: 'a sender 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(pay(T0 - 30 * DAY + row.offset, 'u1', 'm'));
      await engine.createTransaction(pay(T0 - 10, 'u2', 'm'));
      expect(hitsOf(await engine.createTransaction(pay(T0, 'u3', 'm')))).toEqual(row.expected);
    });
  }

  it('an event changing the destination payment details re-keys the entry to the new identifier', async () => {
    const engine = await engineWith();
    const first = pay(T0, 'u1', undefined, 'b');
    await engine.createTransaction(first);
    await engine.createTransaction(pay(T0 + 1, 'u2', undefined, 'b'));
    await engine.createTransactionEvent({
      transactionId: first.transactionId,
      timestamp: T0 + 2,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { destinationPaymentDetails: { method: 'CARD', cardFingerprint: 'c' } },
    });
    // b: u2, u3 (2, not > 2); c: u1, u4, u5 (3 > 2).
    expect(hitsOf(await engine.createTransaction(pay(T0 + 3, 'u3', undefined, 'b')))).toEqual([]);
    await engine.createTransaction(pay(T0 + 4, 'u4', undefined, 'c'));
    expect(hitsOf(await engine.createTransaction(pay(T0 + 5, 'u5', undefined, 'c')))).toEqual(['DESTINATION']);
  });

  it('an event on the current transaction does not count its sender twice', async () => {
    const engine = await engineWith({ sendersCount: 1 });
    const t = pay(T0, 'u1', 'm');
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('uses the defaults (4 senders in 30 days) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-9' });
    let last: string[] = [];
    for (let i = 1; i <= 5; i += 1) {
      last = hitsOf(await engine.createTransaction(pay(T0 + i * DAY, `u${i}`, 'm')));
      if (i === 4) expect(last).toEqual([]);
    }
    expect(last).toEqual(['DESTINATION']);
  });

  const badRows = [
    { name: 'a negative limit', parameters: { sendersCount: -1 }, path: '/parameters/sendersCount' },
    { name: 'a zero-unit window', parameters: { timeWindow: { units: 0, granularity: 'day' } }, path: '/parameters/timeWindow/units' },
    { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-9', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const step = fc.record({
    sender: fc.constantFrom('u1', 'u2', 'u3', 'u4', undefined),
    receiver: fc.constantFrom('m', 'x', undefined),
    gapDays: fc.integer({ min: 0, max: 12 }),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 4 })], { numRuns: 50 })(
    'hits exactly when the brute-force distinct senders to the receiver in 30 days exceed the limit',
    async (steps, limit) => {
      const engine = await engineWith({ sendersCount: limit });
      const history: { at: number; sender: string | undefined; receiver: string | undefined }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapDays * DAY;
        history.push({ at, sender: s.sender, receiver: s.receiver });
        const r = await engine.createTransaction(pay(at, s.sender, s.receiver));
        let expected: string[] = [];
        if (s.receiver !== undefined) {
          const senders = new Set(history.filter((h) => h.receiver === s.receiver && h.at >= at - 30 * DAY && h.sender !== undefined).map((h) => h.sender));
          expected = senders.size > limit ? ['DESTINATION'] : [];
        }
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});
