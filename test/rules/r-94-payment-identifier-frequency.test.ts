import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { DAY, T0, errorOf, testEngine, type TransactionInput } from '../helpers.js';

const engineFor = () => testEngine().engine;

let n = 0;
/** A payment from card `from` to card `to` (undefined → no identifier on that side). */
function pay(at: number, from: string | undefined, to: string | undefined): TransactionInput {
  n += 1;
  return {
    type: 'TRANSFER',
    transactionId: `r94-${n}`,
    timestamp: at,
    originUserId: `s-${n}`,
    destinationUserId: `r-${n}`,
    originAmountDetails: { transactionAmount: 10, transactionCurrency: 'EUR' },
    ...(from === undefined ? {} : { originPaymentDetails: { method: 'CARD', cardFingerprint: from } }),
    ...(to === undefined ? {} : { destinationPaymentDetails: { method: 'CARD', cardFingerprint: to } }),
  };
}

async function engineWith(parameters: Record<string, unknown> = {}) {
  const engine = engineFor();
  await engine.createRuleInstance({ ruleId: 'R-94', parameters: { threshold: 3, ...parameters } });
  return engine;
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules
    .filter((h) => h.ruleId === 'R-94')
    .flatMap((h) => h.ruleHitMeta?.hitDirections ?? [])
    .sort();

type Step = readonly [from: string | undefined, to: string | undefined];

describe('R-94 Payment identifier used too frequently', () => {
  const rows: { name: string; parameters?: Record<string, unknown>; steps: Step[]; expected: string[] }[] = [
    {
      name: 'one below the threshold (2 < 3) does not hit',
      steps: [
        ['a', undefined],
        ['a', undefined],
      ],
      expected: [],
    },
    {
      name: 'exactly at the threshold (3 ≥ 3) hits the origin',
      steps: [
        ['a', undefined],
        ['a', undefined],
        ['a', undefined],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'a receiving identifier at the threshold hits the destination',
      steps: [
        [undefined, 'b'],
        [undefined, 'b'],
        [undefined, 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: 'both sides at the threshold hit both',
      steps: [
        ['a', 'b'],
        ['a', 'b'],
        ['a', 'b'],
      ],
      expected: ['DESTINATION', 'ORIGIN'],
    },
    {
      name: "with 'all', the origin identifier counts where it was a destination",
      steps: [
        [undefined, 'a'],
        [undefined, 'a'],
        ['a', undefined],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: "with 'all', the destination identifier counts where it was an origin",
      steps: [
        ['b', undefined],
        ['b', undefined],
        [undefined, 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: "with 'sending', the origin identifier as a destination does not count",
      parameters: { checkSender: 'sending' },
      steps: [
        [undefined, 'a'],
        [undefined, 'a'],
        ['a', undefined],
      ],
      expected: [],
    },
    {
      name: "with 'receiving', the destination identifier as an origin does not count",
      parameters: { checkReceiver: 'receiving' },
      steps: [
        ['b', undefined],
        ['b', undefined],
        [undefined, 'b'],
      ],
      expected: [],
    },
    {
      name: "with checkSender 'none', the origin is not checked",
      parameters: { checkSender: 'none' },
      steps: [
        ['a', 'b'],
        ['a', 'b'],
        ['a', 'b'],
      ],
      expected: ['DESTINATION'],
    },
    {
      name: "with checkReceiver 'none', the destination is not checked",
      parameters: { checkReceiver: 'none' },
      steps: [
        ['a', 'b'],
        ['a', 'b'],
        ['a', 'b'],
      ],
      expected: ['ORIGIN'],
    },
    {
      name: 'other identifiers do not count',
      steps: [
        ['x', undefined],
        ['y', undefined],
        ['a', undefined],
      ],
      expected: [],
    },
    {
      name: 'a missing identifier gives no hit',
      steps: [
        ['a', undefined],
        ['a', undefined],
        [undefined, undefined],
      ],
      expected: [],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const engine = await engineWith(row.parameters);
      let last: string[] = [];
      for (const [i, [from, to]] of row.steps.entries()) last = hitsOf(await engine.createTransaction(pay(T0 + i, from, to)));
      expect(last).toEqual(row.expected);
    });
  }

  const windowRows = [
    { name: 'a use exactly at the window start (7 days) counts', offset: 0, expected: ['ORIGIN'] },
    { name: 'a use 1 ms before the window start does not', offset: -1, expected: [] },
  ];
  for (const row of windowRows) {
    it(row.name, async () => {
      const engine = await engineWith();
      await engine.createTransaction(pay(T0 - 7 * DAY + row.offset, 'a', undefined));
      await engine.createTransaction(pay(T0 - 10, 'a', undefined));
      expect(hitsOf(await engine.createTransaction(pay(T0, 'a', undefined)))).toEqual(row.expected);
    });
  }

  it('an event changing the payment details re-keys the entry to the new identifier', async () => {
    const engine = await engineWith();
    const first = pay(T0, 'a', undefined);
    await engine.createTransaction(first);
    await engine.createTransaction(pay(T0 + 1, 'a', undefined));
    await engine.createTransactionEvent({
      transactionId: first.transactionId,
      timestamp: T0 + 2,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originPaymentDetails: { method: 'CARD', cardFingerprint: 'z' } },
    });
    // a: 2 uses (< 3); z: the moved use plus 2 more reaches 3.
    expect(hitsOf(await engine.createTransaction(pay(T0 + 3, 'a', undefined)))).toEqual([]);
    await engine.createTransaction(pay(T0 + 4, 'z', undefined));
    expect(hitsOf(await engine.createTransaction(pay(T0 + 5, 'z', undefined)))).toEqual(['ORIGIN']);
  });

  it('an event on the current transaction does not count it twice', async () => {
    const engine = await engineWith({ threshold: 2 });
    const t = pay(T0, 'a', undefined);
    await engine.createTransaction(t);
    const ev = await engine.createTransactionEvent({ transactionId: t.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' });
    expect(hitsOf(ev)).toEqual([]);
  });

  it('uses the defaults (2 in 7 days, both sides) when no parameters are given', async () => {
    const engine = engineFor();
    await engine.createRuleInstance({ ruleId: 'R-94' });
    expect(hitsOf(await engine.createTransaction(pay(T0 - 6 * DAY, 'a', undefined)))).toEqual([]);
    expect(hitsOf(await engine.createTransaction(pay(T0, undefined, 'a')))).toEqual(['DESTINATION']);
  });

  const badRows = [
    { name: 'a zero threshold', parameters: { threshold: 0 }, path: '/parameters/threshold' },
    { name: 'an unknown checkSender', parameters: { checkSender: 'receiving' }, path: '/parameters/checkSender' },
    { name: 'an unknown parameter', parameters: { extra: 1 }, path: '/parameters/extra' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const e = await errorOf(() => engineFor().createRuleInstance({ ruleId: 'R-94', parameters: row.parameters }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  const card = fc.constantFrom('a', 'b', 'c', undefined);
  const step = fc.record({ from: card, to: card, gapHours: fc.integer({ min: 0, max: 60 }) });
  test.prop(
    [
      fc.array(step, { minLength: 1, maxLength: 20 }),
      fc.integer({ min: 1, max: 4 }),
      fc.constantFrom('sending', 'all', 'none'),
      fc.constantFrom('receiving', 'all', 'none'),
    ],
    {
      numRuns: 50,
    },
  )('hits a side exactly when the brute-force uses of its identifier in 7 days reach the threshold', async (steps, threshold, checkSender, checkReceiver) => {
    const engine = await engineWith({ threshold, checkSender, checkReceiver });
    const history: { at: number; from: string | undefined; to: string | undefined }[] = [];
    let at = T0;
    for (const s of steps) {
      at += s.gapHours * 3_600_000;
      history.push({ at, from: s.from, to: s.to });
      const r = await engine.createTransaction(pay(at, s.from, s.to));
      const inWindow = history.filter((h) => h.at >= at - 7 * DAY);
      const uses = (id: string, own: 'from' | 'to', mode: string) =>
        mode === 'none'
          ? 0
          : inWindow.filter((h) => h[own] === id).length + (mode === 'all' ? inWindow.filter((h) => h[own === 'from' ? 'to' : 'from'] === id).length : 0);
      const expected: string[] = [];
      if (s.to !== undefined && checkReceiver !== 'none' && uses(s.to, 'to', checkReceiver) >= threshold) expected.push('DESTINATION');
      if (s.from !== undefined && checkSender !== 'none' && uses(s.from, 'from', checkSender) >= threshold) expected.push('ORIGIN');
      expect(hitsOf(r)).toEqual(expected);
    }
  });
});
