import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createFixedRateProvider } from '../../src/index.js';
import { scaledToDecimal, toScaled } from '../../src/domain/money.js';
import { DAY, HOUR, T0, errorOf, testEngine } from '../helpers.js';

/** One EUR is two USD: conversions in these tests are exact. */
const HALF_EUR = createFixedRateProvider({ USD: '1', EUR: '0.5' });

/** The parameters every test starts from: the defaults, with the minimum inflow in the base currency (USD). */
const BASE = {
  outflowTransactionTypes: ['TRANSFER'],
  inflowTransactionTypes: ['DEPOSIT', 'TRANSFER'],
  minimumInflowAmount: { USD: 500 },
  passThroughWindow: { units: 24, granularity: 'hour' },
  minimumOutflowPercentage: 80,
  maximumOutflowPercentage: 100,
  minimumRounds: 2,
  roundsWindow: { units: 14, granularity: 'day', rollingBasis: true },
  maxEntries: 50,
};

async function engineWith(parameters: Record<string, unknown> = {}) {
  const { engine } = testEngine({ rates: HALF_EUR });
  await engine.createRuleInstance({ ruleId: 'TXM-1', parameters: { ...BASE, ...parameters } });
  return engine;
}

let n = 0;
/** A transaction of `type` from `sender` to `receiver` (either may be an external party), ids ordered as created. */
function flow(at: number, type: string, sender: string | undefined, receiver: string | undefined, amount: number, currency = 'USD') {
  n += 1;
  return {
    type,
    transactionId: `txm1-${String(n).padStart(6, '0')}`,
    timestamp: at,
    ...(sender === undefined ? {} : { originUserId: sender }),
    ...(receiver === undefined ? {} : { destinationUserId: receiver }),
    originAmountDetails: { transactionAmount: amount, transactionCurrency: currency },
    destinationAmountDetails: { transactionAmount: amount, transactionCurrency: currency },
  };
}

const hitsOf = (r: { hitRules: { ruleId?: string; ruleHitMeta?: { hitDirections?: string[] } }[] }) =>
  r.hitRules.filter((h) => h.ruleId === 'TXM-1').flatMap((h) => h.ruleHitMeta?.hitDirections ?? []);

/** A step: hours after the previous one, then the transaction. */
type Step = readonly [afterMs: number, type: string, sender: string | undefined, receiver: string | undefined, amount: number, currency?: string | undefined];
const IN = (afterMs: number, amount: number, currency?: string): Step => [afterMs, 'DEPOSIT', undefined, 'alice', amount, currency];
const OUT = (afterMs: number, amount: number, currency?: string): Step => [afterMs, 'TRANSFER', 'alice', undefined, amount, currency];

/** Runs the steps; returns the hit directions of the last one. */
async function lastHits(parameters: Record<string, unknown>, steps: readonly Step[]): Promise<string[]> {
  const engine = await engineWith(parameters);
  let at = T0;
  let last: string[] = [];
  for (const [after, type, sender, receiver, amount, currency] of steps) {
    at += after;
    last = hitsOf(await engine.createTransaction(flow(at, type, sender, receiver, amount, currency)));
  }
  return last;
}

/** A first complete round (1,000 in, 900 out two hours later), then the next day's deposit. */
const FIRST_ROUND: readonly Step[] = [IN(0, 1000), OUT(2 * HOUR, 900)];

describe('TXM-1 Funds passed through (money in, similar amount out)', () => {
  const rows: { name: string; parameters?: Record<string, unknown>; steps: readonly Step[]; expected: string[] }[] = [
    { name: 'the second complete round hits the sender', steps: [...FIRST_ROUND, IN(DAY, 2000), OUT(HOUR, 1800)], expected: ['ORIGIN'] },
    { name: 'one complete round is not enough (minimumRounds 2)', steps: FIRST_ROUND, expected: [] },
    { name: 'minimumRounds 1: the first round hits', parameters: { minimumRounds: 1 }, steps: FIRST_ROUND, expected: ['ORIGIN'] },
    {
      name: 'minimumRounds 3 with two rounds does not hit',
      parameters: { minimumRounds: 3 },
      steps: [...FIRST_ROUND, IN(DAY, 2000), OUT(HOUR, 1800)],
      expected: [],
    },
    { name: 'outflow exactly 80 % of the inflow completes the round', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 800)], expected: ['ORIGIN'] },
    { name: 'outflow one minor unit below 80 % does not', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 799.99)], expected: [] },
    { name: 'outflow exactly 100 % completes the round', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 1000)], expected: ['ORIGIN'] },
    { name: 'outflow one minor unit above 100 % does not', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 1000.01)], expected: [] },
    {
      name: 'fractional percentages are exact: 1 of 3 is not ≥ 33.33333334 %',
      parameters: { minimumRounds: 1, minimumOutflowPercentage: 33.33333334 },
      steps: [IN(0, 3000), OUT(HOUR, 1000)],
      expected: [],
    },
    {
      name: 'fractional percentages are exact: 1 of 3 is ≥ 33.33333333 %',
      parameters: { minimumRounds: 1, minimumOutflowPercentage: 33.33333333 },
      steps: [IN(0, 3000), OUT(HOUR, 1000)],
      expected: ['ORIGIN'],
    },
    { name: 'an outflow exactly 24 h after the inflow counts', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(DAY, 900)], expected: ['ORIGIN'] },
    { name: 'an outflow 24 h + 1 ms after the inflow does not', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(DAY + 1, 900)], expected: [] },
    { name: 'an outflow at the same instant as the inflow is not after it', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(0, 900)], expected: [] },
    {
      name: 'a round split into two transfers completes with the second',
      steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 450), OUT(HOUR, 450)],
      expected: ['ORIGIN'],
    },
    { name: 'the first half of a split round does not complete it', steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 450)], expected: [] },
    {
      name: 'two complete rounds, then a transfer in an incomplete third round does not hit',
      steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 900), IN(DAY, 1000), OUT(HOUR, 100)],
      expected: [],
    },
    {
      name: 'an outflow counts towards the latest inflow only (two inflows, one outflow of their sum)',
      steps: [...FIRST_ROUND, IN(DAY, 1000), IN(HOUR, 1000), OUT(HOUR, 1800)],
      expected: [],
    },
    { name: 'an inflow at the minimum (500) starts a round', steps: [...FIRST_ROUND, IN(DAY, 500), OUT(HOUR, 450)], expected: ['ORIGIN'] },
    { name: 'an inflow one minor unit below the minimum does not', steps: [...FIRST_ROUND, IN(DAY, 499.99), OUT(HOUR, 450)], expected: [] },
    {
      name: 'a smaller inflow below the minimum does not cut the round it falls into',
      steps: [...FIRST_ROUND, IN(DAY, 1000), IN(HOUR, 20), OUT(HOUR, 900)],
      expected: ['ORIGIN'],
    },
    { name: 'a WITHDRAWAL is not money out by default', steps: [...FIRST_ROUND, IN(DAY, 1000), [HOUR, 'WITHDRAWAL', 'alice', undefined, 900]], expected: [] },
    {
      name: 'a WITHDRAWAL is money out when listed',
      parameters: { outflowTransactionTypes: ['TRANSFER', 'WITHDRAWAL'] },
      steps: [...FIRST_ROUND, IN(DAY, 1000), [HOUR, 'WITHDRAWAL', 'alice', undefined, 900]],
      expected: ['ORIGIN'],
    },
    {
      name: 'an incoming TRANSFER from a customer is money in',
      steps: [...FIRST_ROUND, [DAY, 'TRANSFER', 'bob', 'alice', 1000], OUT(HOUR, 900)],
      expected: ['ORIGIN'],
    },
    {
      name: "the first round's inflow 14 days before is still in the window",
      steps: [...FIRST_ROUND, IN(14 * DAY - 2 * HOUR - HOUR, 1000), OUT(HOUR, 900)],
      expected: ['ORIGIN'],
    },
    {
      name: "the first round's inflow 14 days + 1 ms before is not",
      steps: [...FIRST_ROUND, IN(14 * DAY - 2 * HOUR - HOUR + 1, 1000), OUT(HOUR, 900)],
      expected: [],
    },
    {
      name: 'maxEntries 3: three later receipts push the first inflow out of what is read',
      parameters: { maxEntries: 3 },
      steps: [...FIRST_ROUND, IN(DAY, 10), IN(HOUR, 10), IN(HOUR, 1000), OUT(HOUR, 900)],
      expected: [],
    },
    {
      name: 'maxEntries 4: the first inflow is still read',
      parameters: { maxEntries: 4 },
      steps: [...FIRST_ROUND, IN(DAY, 10), IN(HOUR, 10), IN(HOUR, 1000), OUT(HOUR, 900)],
      expected: ['ORIGIN'],
    },
    {
      name: 'currencies: EUR 1,000 in (USD 2,000), EUR 800 out is exactly 80 %',
      parameters: { minimumInflowAmount: { EUR: 500 } },
      steps: [...FIRST_ROUND, IN(DAY, 1000, 'EUR'), OUT(HOUR, 800, 'EUR')],
      expected: ['ORIGIN'],
    },
    {
      name: 'currencies: EUR 799.99 out is one minor unit short',
      parameters: { minimumInflowAmount: { EUR: 500 } },
      steps: [...FIRST_ROUND, IN(DAY, 1000, 'EUR'), OUT(HOUR, 799.99, 'EUR')],
      expected: [],
    },
    {
      name: 'currencies: an inflow of USD 999.98 is EUR 499.99, below a minimum of EUR 500',
      parameters: { minimumInflowAmount: { EUR: 500 } },
      steps: [...FIRST_ROUND, IN(DAY, 999.98), OUT(HOUR, 900)],
      expected: [],
    },
    {
      name: 'currencies: an inflow of USD 1,000 is EUR 500, at the minimum',
      parameters: { minimumInflowAmount: { EUR: 500 } },
      steps: [...FIRST_ROUND, IN(DAY, 1000), OUT(HOUR, 900)],
      expected: ['ORIGIN'],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      expect(await lastHits(row.parameters ?? {}, row.steps)).toEqual(row.expected);
    });
  }

  it('describes the hit with the round, the delay and the rounds counted', async () => {
    const engine = await engineWith();
    let at = T0;
    let last: Awaited<ReturnType<typeof engine.createTransaction>> | undefined;
    for (const [after, type, sender, receiver, amount] of [...FIRST_ROUND, IN(DAY, 2000), OUT(HOUR, 1800)]) {
      at += after;
      last = await engine.createTransaction(flow(at, type, sender, receiver, amount));
    }
    expect(last?.hitRules.find((h) => h.ruleId === 'TXM-1')?.ruleDescription).toBe(
      'Sender passed on 1800.00 USD of 2000.00 USD received within 24 hours; 2 such rounds in 14 days, at least 2.',
    );
  });

  it('gives the round (outflow against both percentages of its inflow, its transactions) and the rounds counted as evidence', async () => {
    const engine = await engineWith({ minimumOutflowPercentage: 33.33 });
    let at = T0;
    const ids: string[] = [];
    let last: Awaited<ReturnType<typeof engine.createTransaction>> | undefined;
    // 2,000 in, then 700 and 1,100 out: 1,800 of 2,000, within 33.33 % (666.6) and 100 % (2,000).
    for (const [after, type, sender, receiver, amount] of [...FIRST_ROUND, IN(DAY, 2000), OUT(HOUR, 700), OUT(HOUR, 1100)]) {
      at += after;
      const t = flow(at, type, sender, receiver, amount);
      ids.push(t.transactionId);
      last = await engine.createTransaction(t);
    }
    const [, , inflowId, firstOut, secondOut] = ids;
    expect(last?.hitRules.find((h) => h.ruleId === 'TXM-1')?.ruleHitMeta?.evidence).toEqual([
      {
        direction: 'ORIGIN',
        kind: 'passThroughOutflow',
        value: '1800',
        comparison: '>=',
        limit: '666.6',
        currency: 'USD',
        percentage: 33.33,
        inflow: '2000',
        inflowTransactionId: inflowId,
        transactionCount: 3,
        transactionIds: [secondOut, firstOut, inflowId],
      },
      { direction: 'ORIGIN', kind: 'passThroughOutflow', value: '1800', comparison: '<=', limit: '2000', currency: 'USD', percentage: 100, inflow: '2000' },
      {
        direction: 'ORIGIN',
        kind: 'passThroughRounds',
        value: 2,
        comparison: '>=',
        limit: 2,
        window: { start: at - 14 * DAY, end: at, units: 14, granularity: 'day', rolling: true },
      },
    ]);
  });

  it('a state event on a completing transfer re-evaluates it to the same hit', async () => {
    const engine = await engineWith();
    let at = T0;
    for (const [after, type, sender, receiver, amount] of [...FIRST_ROUND, IN(DAY, 1000)]) {
      at += after;
      await engine.createTransaction(flow(at, type, sender, receiver, amount));
    }
    const out = flow(at + HOUR, 'TRANSFER', 'alice', undefined, 900);
    expect(hitsOf(await engine.createTransaction(out))).toEqual(['ORIGIN']);
    const event = await engine.createTransactionEvent({
      transactionId: out.transactionId,
      eventId: 'e-1',
      timestamp: at + 2 * HOUR,
      transactionState: 'SUCCESSFUL',
    });
    expect(hitsOf(event)).toEqual(['ORIGIN']);
  });

  const badRows = [
    {
      name: 'a maximum below the minimum percentage',
      parameters: { minimumOutflowPercentage: 90, maximumOutflowPercentage: 85 },
      path: '/parameters/maximumOutflowPercentage',
    },
    { name: 'a zero minimum percentage', parameters: { minimumOutflowPercentage: 0 }, path: '/parameters/minimumOutflowPercentage' },
    { name: 'maxEntries above 1,000', parameters: { maxEntries: 1001 }, path: '/parameters/maxEntries' },
    {
      name: 'a pass-through window in weeks',
      parameters: { passThroughWindow: { units: 1, granularity: 'week' } },
      path: '/parameters/passThroughWindow/granularity',
    },
    { name: 'an empty minimum inflow map', parameters: { minimumInflowAmount: {} }, path: '/parameters/minimumInflowAmount' },
  ];
  for (const row of badRows) {
    it(`rejects ${row.name} with INVALID_PARAMETERS at ${row.path}`, async () => {
      const { engine } = testEngine();
      const e = await errorOf(() => engine.createRuleInstance({ ruleId: 'TXM-1', parameters: { ...BASE, ...row.parameters } }));
      expect(e.code).toBe('INVALID_PARAMETERS');
      expect(e.details[0]?.path).toBe(row.path);
    });
  }
});

describe('properties', () => {
  // Mostly rounds in the making: inflows at or around the minimum, outflows at telling shares of them.
  const step = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('in'),
        amount: fc.constantFrom(10, 499.99, 500, 1000, 2000),
        gapMs: fc.constantFrom(0, HOUR, 6 * HOUR, DAY, 3 * DAY),
      }),
    },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('out'),
        amount: fc.constantFrom(100, 450, 500, 800, 900, 1000, 1000.01),
        gapMs: fc.constantFrom(0, 1, HOUR, 2 * HOUR, DAY + 1),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('withdrawal', 'other'), amount: fc.constantFrom(450, 900), gapMs: fc.constantFrom(0, HOUR) }) },
  );
  const parameters = fc.record({
    minimumRounds: fc.integer({ min: 1, max: 3 }),
    maxEntries: fc.integer({ min: 1, max: 4 }),
    hours: fc.constantFrom(1, 24, 48),
    minimumOutflowPercentage: fc.constantFrom(45, 80, 90),
    maximumOutflowPercentage: fc.constantFrom(100, 110),
    days: fc.constantFrom(3, 14),
  });
  test.prop([fc.array(step, { minLength: 1, maxLength: 40 }), parameters], { numRuns: 100 })(
    'hits exactly when a brute-force recomputation of rounds over the last maxEntries receipts and sends says so, with that round and count as evidence',
    async (steps, p) => {
      const engine = await engineWith({
        minimumRounds: p.minimumRounds,
        maxEntries: p.maxEntries,
        passThroughWindow: { units: p.hours, granularity: 'hour' },
        minimumOutflowPercentage: p.minimumOutflowPercentage,
        maximumOutflowPercentage: p.maximumOutflowPercentage,
        roundsWindow: { units: p.days, granularity: 'day', rollingBasis: true },
      });
      const history: { id: string; at: number; type: string; sender: string | undefined; receiver: string | undefined; amount: bigint }[] = [];
      let at = T0;
      for (const s of steps) {
        at += s.gapMs;
        const [type, sender, receiver] =
          s.kind === 'in'
            ? ['DEPOSIT', undefined, 'alice']
            : s.kind === 'out'
              ? ['TRANSFER', 'alice', undefined]
              : s.kind === 'withdrawal'
                ? ['WITHDRAWAL', 'alice', undefined]
                : ['TRANSFER', 'bob', 'carol'];
        const t = flow(at, type as string, sender, receiver, s.amount);
        history.push({ id: t.transactionId, at, type: type as string, sender, receiver, amount: toScaled(s.amount) });
        const r = await engine.createTransaction(t);
        // The reference: the last maxEntries received and sent in the window (by time, then id), scanned naively.
        const byTime = (a: { at: number; id: string }, b: { at: number; id: string }) => a.at - b.at || (a.id < b.id ? -1 : 1);
        const inWindow = history.filter((h) => h.at >= at - p.days * DAY).sort(byTime);
        const received = inWindow.filter((h) => h.receiver === 'alice').slice(-p.maxEntries);
        const sent = inWindow.filter((h) => h.sender === 'alice').slice(-p.maxEntries);
        const inflows = received.filter((h) => (h.type === 'DEPOSIT' || h.type === 'TRANSFER') && h.amount >= toScaled(500));
        const totals = inflows.map(() => 0n);
        const outflowIds: string[][] = inflows.map(() => []);
        let currentRound = -1;
        for (const o of sent.filter((h) => h.type === 'TRANSFER')) {
          let owner = -1;
          for (let i = 0; i < inflows.length; i++) if ((inflows[i] as { at: number }).at < o.at) owner = i;
          if (owner < 0 || o.at - (inflows[owner] as { at: number }).at > p.hours * HOUR) continue;
          totals[owner] = (totals[owner] as bigint) + o.amount;
          outflowIds[owner]?.push(o.id);
          if (o.id === t.transactionId) currentRound = owner;
        }
        const complete = (i: number) => {
          const total = (totals[i] as bigint) * 100n;
          const inflow = (inflows[i] as { amount: bigint }).amount;
          return total >= BigInt(p.minimumOutflowPercentage) * inflow && total <= BigInt(p.maximumOutflowPercentage) * inflow;
        };
        const rounds = inflows.filter((_, i) => complete(i)).length;
        const expected =
          type === 'TRANSFER' && sender === 'alice' && currentRound >= 0 && complete(currentRound) && rounds >= p.minimumRounds ? ['ORIGIN'] : [];
        expect(hitsOf(r), `step at ${at - T0} ms`).toEqual(expected);
        if (expected.length === 0) continue;
        // The evidence: the round's outflow against both percentages of its inflow, its transactions, the rounds.
        const inflow = inflows[currentRound] as { id: string; amount: bigint };
        const ids = [...(outflowIds[currentRound] as string[])].reverse();
        const share = (percentage: number) => {
          expect((BigInt(percentage) * inflow.amount) % 100n).toBe(0n);
          return scaledToDecimal((BigInt(percentage) * inflow.amount) / 100n);
        };
        const outflow = scaledToDecimal(totals[currentRound] as bigint);
        expect(r.hitRules.find((h) => h.ruleId === 'TXM-1')?.ruleHitMeta?.evidence).toEqual([
          {
            direction: 'ORIGIN',
            kind: 'passThroughOutflow',
            value: outflow,
            comparison: '>=',
            limit: share(p.minimumOutflowPercentage),
            currency: 'USD',
            percentage: p.minimumOutflowPercentage,
            inflow: scaledToDecimal(inflow.amount),
            inflowTransactionId: inflow.id,
            transactionCount: ids.length + 1,
            transactionIds: [...ids.slice(0, 19), inflow.id],
          },
          {
            direction: 'ORIGIN',
            kind: 'passThroughOutflow',
            value: outflow,
            comparison: '<=',
            limit: share(p.maximumOutflowPercentage),
            currency: 'USD',
            percentage: p.maximumOutflowPercentage,
            inflow: scaledToDecimal(inflow.amount),
          },
          {
            direction: 'ORIGIN',
            kind: 'passThroughRounds',
            value: rounds,
            comparison: '>=',
            limit: p.minimumRounds,
            window: { start: at - p.days * DAY, end: at, units: p.days, granularity: 'day', rolling: true },
          },
        ]);
      }
    },
  );
});
