import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, tx } from '../helpers.js';

const hit = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'R-119').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

async function engineWith(limit: number) {
  const { engine } = testEngine();
  await engine.createRuleInstance({
    ruleId: 'R-119',
    parameters: { transactionsLimit: limit, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
  });
  return engine;
}

describe('R-119 High velocity between the same parties', () => {
  it('hits when the pair count, this one included, exceeds the limit (strict >), on both sides', async () => {
    const engine = await engineWith(2);
    const out = [];
    for (let i = 0; i < 4; i++) out.push(hit(await engine.createTransaction(tx({ timestamp: T0 + i }))));
    expect(out).toEqual([[], [], ['ORIGIN', 'DESTINATION'], ['ORIGIN', 'DESTINATION']]);
  });

  const pairRows = [
    { name: 'the reverse direction is a different pair', other: { originUserId: 'bob', destinationUserId: 'alice' } },
    { name: 'another receiver is a different pair', other: { destinationUserId: 'carol' } },
    { name: 'a transaction without a receiver user is no pair', other: { destinationUserId: undefined } },
  ];
  for (const row of pairRows) {
    it(`${row.name}`, async () => {
      const engine = await engineWith(1);
      await engine.createTransaction(tx({ timestamp: T0, ...row.other }));
      expect(hit(await engine.createTransaction(tx({ timestamp: T0 + 1 })))).toEqual([]);
    });
  }

  it('the window start is inclusive: a transaction exactly 1 day earlier counts, 1 ms more does not', async () => {
    for (const [offset, expected] of [
      [0, ['ORIGIN', 'DESTINATION']],
      [1, []],
    ] as const) {
      const engine = await engineWith(1);
      await engine.createTransaction(tx({ timestamp: T0 - DAY - offset }));
      expect(hit(await engine.createTransaction(tx({ timestamp: T0 })))).toEqual(expected);
    }
  });

  it('rejects a negative limit with INVALID_PARAMETERS', async () => {
    const e = await errorOf(() => testEngine().engine.createRuleInstance({ ruleId: 'R-119', parameters: { transactionsLimit: -1 } }));
    expect(e.details[0]?.path).toBe('/parameters/transactionsLimit');
  });
});

describe('properties', () => {
  test.prop(
    [
      fc.array(fc.tuple(fc.integer({ min: 0, max: 3 * DAY }), fc.constantFrom('bob', 'carol')), { minLength: 1, maxLength: 25 }),
      fc.integer({ min: 0, max: 4 }),
    ],
    { numRuns: 50 },
  )('hits exactly when the same-pair transactions in the rolling day (by timestamp, any arrival order) exceed the limit', async (events, limit) => {
    const engine = await engineWith(limit);
    const seen: { at: number; to: string }[] = [];
    for (const [at, to] of events) {
      const r = await engine.createTransaction(tx({ timestamp: T0 + at, destinationUserId: to }));
      seen.push({ at: T0 + at, to });
      const count = seen.filter((s) => s.to === to && s.at >= T0 + at - DAY && s.at <= T0 + at).length;
      expect(hit(r)).toEqual(count > limit ? ['ORIGIN', 'DESTINATION'] : []);
    }
  });
});
