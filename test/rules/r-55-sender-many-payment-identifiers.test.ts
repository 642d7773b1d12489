import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
/** `user` pays with card `card` (no card → no origin identifier; no user → no sender). */
function pay(at: number, user: string | undefined, card: string | undefined): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r55-${n}`,
    timestamp: at,
    ...(user === undefined ? {} : { originUserId: user }),
    destinationUserId: 'shop',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(card === undefined ? {} : { originPaymentDetails: { method: 'CARD', cardFingerprint: card } }),
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-55', parameters: { uniquePaymentIdentifiersCountThreshold: 2, ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-55').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [user: string | undefined, card: string | undefined];

describe('R-55 Same sender user using too many payment identifiers', () => {
  const rows: { name: string; steps: Step[]; expected: string[] }[] = [
    {
      name: 'exactly at the limit (2 identifiers) does not hit (strict >)',
      steps: [
        ['u', 'c1'],
        ['u', 'c2'],
      ],
      expected: [],
    },
    {
      name: 'one more identifier (3 > 2) hits the origin',
      steps: [
        ['u', 'c1'],
        ['u', 'c2'],
        ['u', 'c3'],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'the same identifier twice counts once',
      steps: [
        ['u', 'c1'],
        ['u', 'c2'],
        ['u', 'c1'],
        ['u', 'c2'],
      ],
      expected: [],
    },
    {
      name: "another sender's identifiers do not count",
      steps: [
        ['v', 'c1'],
        ['v', 'c2'],
        ['u', 'c3'],
      ],
      expected: [],
    },
    {
      name: 'a transaction without an identifier still sees the earlier ones',
      steps: [
        ['u', 'c1'],
        ['u', 'c2'],
        ['u', 'c3'],
        ['u', undefined],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'a transaction without an identifier adds none',
      steps: [
        ['u', 'c1'],
        ['u', undefined],
        ['u', 'c2'],
      ],
      expected: [],
    },
    {
      name: 'a missing sender gives no hit',
      steps: [
        ['u', 'c1'],
        ['u', 'c2'],
        ['u', 'c3'],
        [undefined, 'c4'],
      ],
      expected: [],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      let last: string[] = [];
      for (const [i, [u, c]] of row.steps.entries()) last = hitsOf(await engine.createTransaction(pay(T0 + i, u, c)));
      expect(last).toEqual(row.expected);
    });
  }

  it('received transactions do not count (sent only)', async () => {
    const engine = await engineWith();
    await engine.createTransaction({ ...pay(T0, 'x', 'c1'), destinationUserId: 'u', destinationPaymentDetails: { method: 'CARD', cardFingerprint: 'r1' } });
    await engine.createTransaction({ ...pay(T0 + 1, 'x', 'c1'), destinationUserId: 'u', destinationPaymentDetails: { method: 'CARD', cardFingerprint: 'r2' } });
    expect(hitsOf(await engine.createTransaction(pay(T0 + 2, 'u', 'c3')))).toEqual([]);
  });

  const windowRows = [
    { name: 'an identifier exactly at the window start counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'an identifier 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(pay(T0 - DAY + row.offset, 'u', 'c1'));
      await engine.createTransaction(pay(T0 - 10, 'u', 'c2'));
      expect(hitsOf(await engine.createTransaction(pay(T0, 'u', 'c3')))).toEqual(row.expected);
    });
  }

  it('an event changing the payment details re-keys the entry to the new identifier', async () => {
    const engine = await engineWith();
    const first = pay(T0, 'u', 'c1');
    await engine.createTransaction(first);
    await engine.createTransaction(pay(T0 + 1, 'u', 'c2'));
    await engine.createTransactionEvent({
      transactionId: first.transactionId,
      timestamp: T0 + 2,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originPaymentDetails: { method: 'CARD', cardFingerprint: 'c2' } },
    });
    // c1 is gone: c2 plus c3 is 2, not > 2.
    expect(hitsOf(await engine.createTransaction(pay(T0 + 3, 'u', 'c3')))).toEqual([]);
    expect(hitsOf(await engine.createTransaction(pay(T0 + 4, 'u', 'c4')))).toEqual(['ORIGIN']);
  });

  it('an event on the current transaction does not count its identifier twice', async () => {
    const engine = await engineWith({ uniquePaymentIdentifiersCountThreshold: 1 });
    const t = pay(T0, 'u', 'c1');
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('uses the defaults (10 identifiers in a day) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-55' });
    let last: string[] = [];
    for (let i = 1; i <= 11; i += 1) {
      last = hitsOf(await engine.createTransaction(pay(T0 + i, 'u', `c${i}`)));
      if (i === 10) expect(last).toEqual([]);
    }
    expect(last).toEqual(['ORIGIN']);
  });

  const badRows = [
    { name: 'a negative limit', parameters: { uniquePaymentIdentifiersCountThreshold: -1 }, path: '/parameters/uniquePaymentIdentifiersCountThreshold' },
    { name: 'a string limit', parameters: { uniquePaymentIdentifiersCountThreshold: '3' }, path: '/parameters/uniquePaymentIdentifiersCountThreshold' },
    { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-55', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const step = fc.record({
    user: fc.constantFrom('u', 'v', undefined),
    card: fc.constantFrom('c1', 'c2', 'c3', 'c4', undefined),
    gapHours: fc.integer({ min: 0, max: 10 }),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 4 })], { numRuns: 50 })(
    'hits exactly when the brute-force distinct identifiers of the sender in the day exceed the limit',
    async (steps, limit) => {
      const engine = await engineWith({ uniquePaymentIdentifiersCountThreshold: limit });
      const history: { at: number; user: string | undefined; card: string | undefined }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapHours * 3_600_000;
        history.push({ at, user: s.user, card: s.card });
        const r = await engine.createTransaction(pay(at, s.user, s.card));
        let expected: string[] = [];
        if (s.user !== undefined) {
          const cards = new Set(history.filter((h) => h.user === s.user && h.at >= at - DAY && h.card !== undefined).map((h) => h.card));
          expected = cards.size > limit ? ['ORIGIN'] : [];
        }
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});
