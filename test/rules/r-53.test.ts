import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { r53SamePaymentIdentifierManyUsers as rule } from '../../src/rules/library/r-53-same-payment-identifier-many-users.js';
import { DAY, T0, errorOf, testEngine } from '../helpers.js';

if (process.env.FC_SEED !== undefined) fc.configureGlobal({ seed: Number(process.env.FC_SEED) });

const engineFor = () => testEngine().engine;

let n = 0;
/** `user` pays with card `card` (no card → no origin identifier). */
function pay(at: number, user: string | undefined, card: string | undefined) {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r53-${n}`,
    timestamp: at,
    ...(user === undefined ? {} : { originUserId: user }),
    destinationUserId: 'shop',
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(card === undefined ? {} : { originPaymentDetails: { method: 'CARD', cardFingerprint: card } }),
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-53', parameters: { uniqueUsersCountThreshold: 2, ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-53').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [user: string | undefined, card: string | undefined];

describe('R-53 Same unique sender payment identifier used by too many users', () => {
  const rows: { name: string; steps: Step[]; expected: string[] }[] = [
    { name: 'exactly at the limit (2 users) does not hit', steps: [['u1', 'c'], ['u2', 'c']], expected: [] },
    { name: 'one more user (3 > 2) hits the origin', steps: [['u1', 'c'], ['u2', 'c'], ['u3', 'c']], expected: ['ORIGIN'] },
    { name: 'the same user twice counts once', steps: [['u1', 'c'], ['u2', 'c'], ['u1', 'c'], ['u2', 'c']], expected: [] },
    { name: 'users of another identifier do not count', steps: [['u1', 'd'], ['u2', 'd'], ['u3', 'c']], expected: [] },
    { name: 'a missing origin identifier gives no hit', steps: [['u1', 'c'], ['u2', 'c'], ['u3', 'c'], ['u4', undefined]], expected: [] },
    { name: 'a sender-less transaction still sees the earlier users', steps: [['u1', 'c'], ['u2', 'c'], ['u3', 'c'], [undefined, 'c']], expected: ['ORIGIN'] },
    { name: 'a sender-less transaction adds no user', steps: [['u1', 'c'], [undefined, 'c'], ['u2', 'c']], expected: [] },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith();
      let last: string[] = [];
      for (const [i, [u, c]] of row.steps.entries()) last = hitsOf(await engine.createTransaction(pay(T0 + i, u, c)));
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a user exactly at the window start counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a user 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(pay(T0 - DAY + row.offset, 'u1', 'c'));
      await engine.createTransaction(pay(T0 - 10, 'u2', 'c'));
      expect(hitsOf(await engine.createTransaction(pay(T0, 'u3', 'c')))).toEqual(row.expected);
    });
  }

  it('an event changing the payment details re-keys the entry to the new identifier', async () => {
    const engine = await engineWith();
    const first = pay(T0, 'u1', 'c');
    await engine.createTransaction(first);
    await engine.createTransaction(pay(T0 + 1, 'u2', 'c'));
    await engine.createTransactionEvent({
      transactionId: first.transactionId,
      timestamp: T0 + 2,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originPaymentDetails: { method: 'CARD', cardFingerprint: 'd' } },
    });
    // u1 no longer used c: c has u2, u3 (2, not > 2); d has u1, u4, u5 (3 > 2).
    expect(hitsOf(await engine.createTransaction(pay(T0 + 3, 'u3', 'c')))).toEqual([]);
    await engine.createTransaction(pay(T0 + 4, 'u4', 'd'));
    expect(hitsOf(await engine.createTransaction(pay(T0 + 5, 'u5', 'd')))).toEqual(['ORIGIN']);
  });

  it('an event on the current transaction does not count its sender twice', async () => {
    const engine = await engineWith({ uniqueUsersCountThreshold: 1 });
    const t = pay(T0, 'u1', 'c');
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('uses the defaults (10 users in a day) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-53' });
    let last: string[] = [];
    for (let i = 1; i <= 11; i += 1) {
      last = hitsOf(await engine.createTransaction(pay(T0 + i, `u${i}`, 'c')));
      if (i === 10) expect(last).toEqual([]);
    }
    expect(last).toEqual(['ORIGIN']);
  });

  const badRows = [
    { name: 'a negative limit', parameters: { uniqueUsersCountThreshold: -1 }, path: '/parameters/uniqueUsersCountThreshold' },
    { name: 'a fractional limit', parameters: { uniqueUsersCountThreshold: 1.5 }, path: '/parameters/uniqueUsersCountThreshold' },
    { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-53', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const step = fc.record({
    user: fc.constantFrom('u1', 'u2', 'u3', 'u4', undefined),
    card: fc.constantFrom('c', 'd', undefined),
    gapHours: fc.integer({ min: 0, max: 10 }),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 4 })], { numRuns: 50 })(
    'hits exactly when the brute-force distinct senders of the identifier in the day exceed the limit',
    async (steps, limit) => {
      const engine = await engineWith({ uniqueUsersCountThreshold: limit });
      const history: { at: number; user: string | undefined; card: string | undefined }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapHours * 3_600_000;
        history.push({ at, user: s.user, card: s.card });
        const r = await engine.createTransaction(pay(at, s.user, s.card));
        let expected: string[] = [];
        if (s.card !== undefined) {
          const users = new Set(history.filter((h) => h.card === s.card && h.at >= at - DAY && h.user !== undefined).map((h) => h.user));
          expected = users.size > limit ? ['ORIGIN'] : [];
        }
        expect(hitsOf(r)).toEqual(expected);
      }
    },
  );
});
