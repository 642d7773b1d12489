/**
 * `simulate`: a history replayed through a baseline and a candidate rule set answers what live
 * engines with those rule sets answer — the same hits, statuses, counters and alerts — and reports
 * rejected items, the difference between the sets and detection against labels.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createEngine, simulate, type SimulationReport } from '../../src/index.js';
import { eventSequenceArbitrary, ruleInstanceRequestArbitrary } from '../../src/testing/index.js';
import { T0, tx } from '../helpers.js';

const HOUR = 3_600_000;
const velocity = (limit: number) => ({
  ruleId: 'R-30',
  parameters: { transactionsLimit: limit, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } },
});
const threshold = (eur: number) => ({ ruleId: 'R-2', alertCreationOnHit: true, parameters: { transactionAmountThreshold: { EUR: eur } } });
/** A transfer of `amount` EUR from `from` with no receiver (so only its sender is hit). */
const sent = (transactionId: string, from: string, amount: number, timestamp: number) => {
  const {
    destinationUserId: _receiver,
    destinationAmountDetails: _amount,
    ...transaction
  } = tx({
    transactionId,
    originUserId: from,
    timestamp,
    originAmountDetails: { transactionAmount: amount, transactionCurrency: 'EUR' },
  }) as Record<string, unknown>;
  return transaction;
};

describe('simulate', () => {
  it('counts runs, hits, users and alerts per instance of each set, the status mix and the difference', async () => {
    const history = [sent('a', 'u1', 500, T0), sent('b', 'u1', 5_000, T0 + 60_000), sent('c', 'u2', 20_000, T0 + 2 * HOUR)];
    const report = await simulate({ history, baseline: [threshold(10_000), velocity(1)], candidate: [threshold(400)] });
    expect(report.history).toMatchObject({ items: 3, transactions: 3, events: 0, rejected: 0 });
    // [id, runs, hits, distinct transactions, distinct users, alerts]
    expect(report.baseline.instances.map((i) => [i.id, i.runs, i.hits, i.hitTransactions, i.hitUsers, i.alerts])).toEqual([
      ['ri-1', 3, 1, 1, 1, 1],
      ['ri-2', 3, 1, 1, 1, 1],
    ]);
    expect(report.candidate?.instances.map((i) => [i.hits, i.hitUsers, i.alerts])).toEqual([[3, 2, 2]]);
    expect(report.baseline.status.ALLOW).toBe(1);
    expect(report.baseline.hits).toBe(2);
    expect(report.diff?.transactions).toMatchObject({ baselineOnly: 0, candidateOnly: 1, both: 2, candidateOnlySample: ['a'] });
    expect(report.diff?.candidateInstances).toEqual([{ id: 'ri-1', newTransactions: 1, newUsers: 0 }]);
    expect(report.diff?.topNewUsers).toEqual([{ userId: 'u1', transactions: 1 }]);
  });

  it('rejects what the engine refuses — with its position and error — and goes on; strict stops at the first', async () => {
    const history = [
      JSON.stringify(tx({ transactionId: 'ok-1', timestamp: T0 })),
      '{not json',
      '',
      JSON.stringify({ transactionId: 'ok-1', eventId: 'e1', timestamp: T0 + 1, transactionState: 'NOT_A_STATE' }),
      JSON.stringify({ transactionId: 'missing', timestamp: T0 + 2, transactionState: 'SUCCESSFUL' }),
      JSON.stringify(tx({ transactionId: 'ok-1', timestamp: T0, reference: 'changed' })),
      JSON.stringify(tx({ transactionId: 'ok-1', timestamp: T0 })),
    ];
    const report = await simulate({ history, baseline: [velocity(5)] });
    expect(report.rejected.map((r) => [r.position, r.code])).toEqual([
      [2, 'MALFORMED_JSON'],
      [4, 'VALIDATION_FAILED'],
      [5, 'TRANSACTION_NOT_FOUND'],
      [6, 'TRANSACTION_ID_CONFLICT'],
    ]);
    expect(report.history).toMatchObject({ items: 7, transactions: 1, replays: 1, rejected: 4 });
    await expect(simulate({ history, baseline: [velocity(5)], strict: true })).rejects.toMatchObject({
      code: 'MALFORMED_JSON',
      message: expect.stringMatching(/^History item 2:/),
    });
  });

  it('scores hits against labels: precision, recall and F1 for transactions and users, per typology', async () => {
    const history = [sent('s1', 'mule', 9_900, T0), sent('s2', 'mule', 9_950, T0 + 1), sent('n1', 'honest', 9_990, T0 + 2), sent('n2', 'other', 10, T0 + 3)];
    const labels = [
      { level: 'transaction' as const, id: 's1', typology: 'structuring' },
      { level: 'transaction' as const, id: 's2', typology: 'structuring' },
      { level: 'user' as const, id: 'mule', typology: 'structuring' },
    ];
    const report = await simulate({ history, baseline: [threshold(9_900)], labels });
    const detection = report.baseline.instances[0]?.detection;
    expect(detection?.transactions).toEqual({ truePositives: 2, falsePositives: 1, falseNegatives: 0, precision: 0.6667, recall: 1, f1: 0.8 });
    expect(detection?.users).toMatchObject({ truePositives: 1, falsePositives: 1, precision: 0.5, recall: 1 });
    expect(detection?.typologies.structuring?.transactions.recall).toBe(1);
    expect(report.labels).toEqual({ typologies: { structuring: { transactions: 2, users: 1 } } });
  });

  it('counts a scheme found when any of its accounts is hit, and its key account when the first labelled one is', async () => {
    // Scheme s-1: its key account is hit; s-2: only a secondary account; s-3: none; s-4 is another typology.
    const history = [sent('a', 'key-1', 9_900, T0), sent('b', 'member-2', 9_900, T0 + 1), sent('c', 'key-3', 10, T0 + 2), sent('d', 'key-4', 9_900, T0 + 3)];
    const user = (id: string, typology: string, scheme: string) => ({ level: 'user' as const, id, typology, scheme });
    const labels = [
      user('key-1', 'fan_in', 's-1'),
      user('member-1', 'fan_in', 's-1'),
      user('key-2', 'fan_in', 's-2'),
      user('member-2', 'fan_in', 's-2'),
      user('key-3', 'fan_in', 's-3'),
      user('key-4', 'cycle', 's-4'),
    ];
    const report = await simulate({ history, baseline: [threshold(9_900)], labels });
    expect(report.baseline.detection?.typologies.fan_in?.schemes).toEqual({
      schemes: 3,
      found: 2,
      keyAccountsFound: 1,
      recall: 0.6667,
      keyAccountRecall: 0.3333,
    });
    expect(report.baseline.detection?.typologies.cycle?.schemes).toEqual({ schemes: 1, found: 1, keyAccountsFound: 1, recall: 1, keyAccountRecall: 1 });
  });

  it('counts cases by the engine case grouping: a cycle is three cases per user, one under COUNTERPARTIES', async () => {
    const history = [
      tx({ transactionId: 'c1', originUserId: 'u1', destinationUserId: 'u2', timestamp: T0 }),
      tx({ transactionId: 'c2', originUserId: 'u2', destinationUserId: 'u3', timestamp: T0 + 1 }),
      tx({ transactionId: 'c3', originUserId: 'u3', destinationUserId: 'u1', timestamp: T0 + 2 }),
    ];
    const byUser = await simulate({ history, baseline: [threshold(10)] });
    const grouped = await simulate({ history, baseline: [threshold(10)], engine: { caseGrouping: 'COUNTERPARTIES' } });
    expect([byUser.baseline.alerts, byUser.baseline.cases]).toEqual([3, 3]);
    expect([grouped.baseline.alerts, grouped.baseline.cases]).toEqual([3, 1]);
  });

  it('is deterministic: the same input gives the same report, byte for byte', async () => {
    const history = Array.from({ length: 200 }, (_, i) => tx({ transactionId: `d-${i}`, originUserId: `u${i % 7}`, timestamp: T0 + i * 60_000 }));
    const run = () => simulate({ history, baseline: [velocity(3), threshold(50)], candidate: [velocity(2)] });
    expect(JSON.stringify(await run())).toBe(JSON.stringify(await run()));
  });

  it('takes an event weeks after its transaction went quiet, as a live engine does, and counts the transaction once', async () => {
    const DAY = 24 * HOUR;
    const filler = Array.from({ length: 60 }, (_, d) => sent(`f-${d}`, `u-${d % 5}`, 10, T0 + (d + 1) * DAY));
    const refund = {
      transactionId: 'a',
      eventId: 'late',
      timestamp: T0 + 40 * DAY + 1,
      transactionState: 'SUCCESSFUL',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR' } },
    };
    // b: hit by the candidate only when created (u2 a new user), by both after its own late event.
    const raise = {
      ...refund,
      transactionId: 'b',
      eventId: 'late-b',
      timestamp: T0 + 41 * DAY,
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 20_000, transactionCurrency: 'EUR' } },
    };
    const history = [sent('a', 'u1', 20_000, T0), sent('b', 'u2', 900, T0 + 1), ...filler.slice(0, 40), refund, raise, ...filler.slice(40), { ...refund }];
    const baseline = [threshold(10_000)];
    const candidate = [threshold(500)];
    const report = await simulate({ history, baseline, candidate });
    expect(report.history).toMatchObject({ transactions: 62, events: 2, replays: 1, rejected: 0 });
    // a: hit by the baseline when created, by the candidate after the event 40 days on; b the other way round.
    expect(report.baseline.instances[0]).toMatchObject({ runs: 64, hits: 2, hitTransactions: 2 });
    expect(report.candidate?.instances[0]).toMatchObject({ runs: 64, hits: 4, hitTransactions: 2 });
    expect(report.diff?.transactions).toMatchObject({ baselineOnly: 0, candidateOnly: 0, both: 2, baselineOnlySample: [], candidateOnlySample: [] });
    expect(report.diff?.candidateInstances).toEqual([{ id: 'ri-1', newTransactions: 0, newUsers: 0 }]);
    expect(report.diff?.topNewUsers).toEqual([]);

    for (const [set, requests] of [
      ['baseline', baseline],
      ['candidate', candidate],
    ] as const) {
      const engine = createEngine();
      for (const request of requests) await engine.createRuleInstance(request);
      for (const operation of history) {
        if ('type' in operation) await engine.createTransaction(operation as never);
        else await engine.createTransactionEvent(operation as never);
      }
      const [live] = await engine.listRuleInstances();
      expect([report[set]?.instances[0]?.runs, report[set]?.instances[0]?.hits]).toEqual([live?.runCount, live?.hitCount]);
    }
  });

  describe('properties', () => {
    test.prop(
      [
        fc.array(ruleInstanceRequestArbitrary({ triggersOnHit: false }), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(eventSequenceArbitrary(), { maxLength: 10, selector: (s) => s.transaction.transactionId }),
        fc.constantFrom('USER', 'COUNTERPARTIES'),
      ],
      { numRuns: 30 },
    )(
      'counts what a live engine with the same rule set and case grouping counts: runs, hits, alerts, cases and statuses',
      async (requests, sequences, caseGrouping) => {
        const engine = createEngine({ caseGrouping });
        for (const request of requests) await engine.createRuleInstance(request);
        // In time order, as a history is (a transaction before its events).
        const operations = [...sequences.map((s) => s.transaction), ...sequences.flatMap((s) => s.events)].sort((a, b) => a.timestamp - b.timestamp);
        const statuses: Record<string, number> = { ALLOW: 0, FLAG: 0, SUSPEND: 0, BLOCK: 0 };
        for (const operation of operations) {
          const answer =
            'type' in operation
              ? await engine.createTransaction(operation).catch(() => null)
              : await engine.createTransactionEvent(operation).catch(() => null);
          if (answer !== null) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        }
        const report: SimulationReport = await simulate({
          history: operations,
          baseline: await engine.listRuleInstances(),
          engine: { caseGrouping },
        });
        const live = await engine.listRuleInstances();
        expect(report.baseline.instances.map((i) => [i.id, i.runs, i.hits])).toEqual(live.map((i) => [i.id, i.runCount, i.hitCount]));
        expect(report.baseline.status).toEqual(statuses);
        const alerts = await engine.listAlerts();
        expect(report.baseline.alerts).toBe(alerts.length);
        expect(report.baseline.cases).toBe((await engine.listCases()).length);
      },
    );
  });
});
