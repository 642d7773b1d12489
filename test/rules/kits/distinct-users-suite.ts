/**
 * The tests every "too many users on one key" rule (R-52 an IP address, R-53 an origin payment
 * identifier) runs through the engine, given how its transactions carry the key
 * ({@link describeDistinctUsersRule}). Not a test file.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../../helpers.js';

/** How a rule's transactions carry the shared key, and how its tests name it. */
export interface DistinctUsersRuleCase {
  readonly ruleId: string;
  readonly title: string;
  /** A transaction `user` (none: sender-less) makes with `key` (none: the transaction has no key). */
  pay(at: number, user: string | undefined, key: string | undefined): TransactionInput;
  /** Two keys. */
  readonly keys: readonly [string, string];
  /** The key in test names: `IP`, `identifier`. */
  readonly keyName: string;
  /** A transaction without a key in test names: `a missing IP`. */
  readonly missingKey: string;
  /** The event that moves a transaction from the first key to the second: its name and attributes. */
  readonly rekey: { readonly name: string; readonly attributes: Record<string, unknown> };
}

const hitsOf = (ruleId: string, r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === ruleId).flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

type Step = readonly [user: string | undefined, key: 0 | 1 | undefined];

/** The table-driven tests and the brute-force property of one distinct-users rule. */
export function describeDistinctUsersRule(c: DistinctUsersRuleCase): void {
  const engineFor = () => testEngine().engine;
  const hits = (r: Parameters<typeof hitsOf>[1]) => hitsOf(c.ruleId, r);
  const [k, other] = c.keys;
  const keyOf = (key: 0 | 1 | undefined) => (key === undefined ? undefined : c.keys[key]);
  async function engineWith(parameters: Record<string, unknown> = {}) {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: c.ruleId, parameters: { uniqueUsersCountThreshold: 2, ...parameters } });
    return engine;
  }

  describe(`${c.ruleId} ${c.title}`, () => {
    const rows: { name: string; steps: Step[]; expected: string[] }[] = [
      {
        name: 'exactly at the limit (2 users) does not hit',
        steps: [
          ['u1', 0],
          ['u2', 0],
        ],
        expected: [],
      },
      {
        name: 'one more user (3 > 2) hits the origin',
        steps: [
          ['u1', 0],
          ['u2', 0],
          ['u3', 0],
        ],
        expected: ['ORIGIN'],
      },
      {
        name: 'the same user twice counts once',
        steps: [
          ['u1', 0],
          ['u2', 0],
          ['u1', 0],
          ['u2', 0],
        ],
        expected: [],
      },
      {
        name: `users of another ${c.keyName} do not count`,
        steps: [
          ['u1', 1],
          ['u2', 1],
          ['u3', 0],
        ],
        expected: [],
      },
      {
        name: `${c.missingKey} gives no hit`,
        steps: [
          ['u1', 0],
          ['u2', 0],
          ['u3', 0],
          ['u4', undefined],
        ],
        expected: [],
      },
      {
        name: 'a sender-less transaction still sees the earlier users',
        steps: [
          ['u1', 0],
          ['u2', 0],
          ['u3', 0],
          [undefined, 0],
        ],
        expected: ['ORIGIN'],
      },
      {
        name: 'a sender-less transaction adds no user',
        steps: [
          ['u1', 0],
          [undefined, 0],
          ['u2', 0],
        ],
        expected: [],
      },
    ];
    for (const row of rows) {
      it(row.name, async () => {
        const engine = await engineWith();
        let last: string[] = [];
        for (const [i, [u, key]] of row.steps.entries()) last = hits(await engine.createTransaction(c.pay(T0 + i, u, keyOf(key))));
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
        await engine.createTransaction(c.pay(T0 - DAY + row.offset, 'u1', k));
        await engine.createTransaction(c.pay(T0 - 10, 'u2', k));
        expect(hits(await engine.createTransaction(c.pay(T0, 'u3', k)))).toEqual(row.expected);
      });
    }

    it(c.rekey.name, async () => {
      const engine = await engineWith();
      const first = c.pay(T0, 'u1', k);
      await engine.createTransaction(first);
      await engine.createTransaction(c.pay(T0 + 1, 'u2', k));
      await engine.createTransactionEvent({
        transactionId: first.transactionId,
        timestamp: T0 + 2,
        transactionState: 'SUCCESSFUL',
        updatedTransactionAttributes: c.rekey.attributes,
      });
      // u1 no longer used the first key: it has u2, u3 (2, not > 2); the second has u1, u4, u5 (3 > 2).
      expect(hits(await engine.createTransaction(c.pay(T0 + 3, 'u3', k)))).toEqual([]);
      await engine.createTransaction(c.pay(T0 + 4, 'u4', other));
      expect(hits(await engine.createTransaction(c.pay(T0 + 5, 'u5', other)))).toEqual(['ORIGIN']);
    });

    it('an event on the current transaction does not count its sender twice', async () => {
      const engine = await engineWith({ uniqueUsersCountThreshold: 1 });
      const t = c.pay(T0, 'u1', k);
      await engine.createTransaction(t);
      const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
      expect(hits(ev)).toEqual([]);
    });

    it('uses the defaults (10 users in a day) when no parameters are given', async () => {
      const engine = engineFor();
      await engine.createRuleInstance({ ruleId: c.ruleId });
      let last: string[] = [];
      for (let i = 1; i <= 11; i += 1) {
        last = hits(await engine.createTransaction(c.pay(T0 + i, `u${i}`, k)));
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
        const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: c.ruleId, parameters: row.parameters }));
        expect(e.code).toBe('INVALID_PARAMETERS');
        expect(e.details[0]?.path).toBe(row.path);
      });
    }
  });

  describe('properties', () => {
    const step = fc.record({
      user: fc.constantFrom('u1', 'u2', 'u3', 'u4', undefined),
      key: fc.constantFrom(k, other, undefined),
      gapHours: fc.integer({ min: 0, max: 10 }),
    });
    test.prop([fc.array(step, { minLength: 1, maxLength: 25 }), fc.integer({ min: 0, max: 4 })], { numRuns: 50 })(
      `hits exactly when the brute-force distinct senders of the ${c.keyName} in the day exceed the limit`,
      async (steps, limit) => {
        const engine = await engineWith({ uniqueUsersCountThreshold: limit });
        const history: { at: number; user: string | undefined; key: string | undefined }[] = [];
        let at = T0;
        for (const s of steps) {
          at += s.gapHours * 3_600_000;
          history.push({ at, user: s.user, key: s.key });
          const r = await engine.createTransaction(c.pay(at, s.user, s.key));
          let expected: string[] = [];
          if (s.key !== undefined) {
            const users = new Set(history.filter((h) => h.key === s.key && h.at >= at - DAY && h.user !== undefined).map((h) => h.user));
            expected = users.size > limit ? ['ORIGIN'] : [];
          }
          expect(hits(r)).toEqual(expected);
        }
      },
    );
  });
}
