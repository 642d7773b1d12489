/**
 * The pure core on the root entry — `createRuleSet`, `runRuleSet`, the event fold and
 * `monitoringResultOf` — answers what the engine answers: the same rule results and status for
 * every transaction and event, with no engine and no repository.
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  createAggregateStore,
  createEngine,
  createRuleSet,
  foldTransactionEvents,
  initialTransaction,
  isTxmonError,
  runRuleSet,
  type SequencedEvent,
  type Transaction,
} from '../../src/index.js';
import { eventSequenceArbitrary, ruleInstanceRequestArbitrary } from '../../src/testing/index.js';
import { T0, tx } from '../helpers.js';

const velocity = { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } };

describe('createRuleSet', () => {
  it('checks each instance as createRuleInstance does, giving ids by position unless one is given', () => {
    const ruleSet = createRuleSet([velocity, { ruleId: 'R-2', id: 'big', parameters: { transactionAmountThreshold: { EUR: 10_000 } } }]);
    expect(ruleSet.instances.map((i) => [i.id, i.ruleId, i.status, i.mode])).toEqual([
      ['ri-1', 'R-30', 'ACTIVE', 'LIVE'],
      ['big', 'R-2', 'ACTIVE', 'LIVE'],
    ]);
    expect(ruleSet.prepared).toHaveLength(2);
    expect([...ruleSet.series]).toContain('user-sending');
  });

  it('takes back the instances an engine lists, counters and dates dropped', async () => {
    const engine = createEngine();
    await engine.createRuleInstance(velocity);
    const listed = await engine.listRuleInstances();
    expect(createRuleSet(listed).instances[0]).toMatchObject({ id: listed[0]?.id, runCount: 0, hitCount: 0, parameters: listed[0]?.parameters });
  });

  it('refuses a bad instance with the error createRuleInstance gives, its path under the instance’s index', () => {
    let error: unknown;
    try {
      createRuleSet([velocity, { ruleId: 'R-30', parameters: { transactionsLimit: -1 } }]);
    } catch (e) {
      error = e;
    }
    expect(isTxmonError(error) && error.code).toBe('INVALID_PARAMETERS');
    expect((error as { details: { path: string }[] }).details.map((d) => d.path.split('/').slice(0, 3).join('/'))).toContain('/1/parameters');
  });
});

describe('runRuleSet', () => {
  it('evaluates a transaction against the windows of its store, then adds it to them', () => {
    const ruleSet = createRuleSet([velocity]);
    const store = createAggregateStore();
    const first = runRuleSet({ ruleSet, store, transaction: initialTransaction(tx({ timestamp: T0 })) });
    const second = runRuleSet({ ruleSet, store, transaction: initialTransaction(tx({ timestamp: T0 + 60_000 })) });
    expect([first.result.status, second.result.status]).toEqual(['ALLOW', 'FLAG']);
    expect(second.result.hitRules.map((h) => h.ruleInstanceId)).toEqual(['ri-1']);
  });

  it('replaces an updated transaction’s entries instead of counting it twice', () => {
    const ruleSet = createRuleSet([
      { ruleId: 'R-30', parameters: { transactionsLimit: 2, timeWindow: { units: 1, granularity: 'hour', rollingBasis: true } } },
    ]);
    const store = createAggregateStore();
    const created = initialTransaction(tx({ timestamp: T0 }));
    runRuleSet({ ruleSet, store, transaction: created });
    const updated = foldTransactionEvents(created, [
      { event: { transactionId: created.transactionId, timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }, arrival: 0 },
    ]);
    for (let i = 0; i < 3; i++) expect(runRuleSet({ ruleSet, store, transaction: updated, previous: created }).result.status).toBe('ALLOW');
  });

  describe('properties', () => {
    test.prop(
      [
        fc.array(ruleInstanceRequestArbitrary({ triggersOnHit: false }), { minLength: 1, maxLength: 4 }),
        fc.uniqueArray(eventSequenceArbitrary(), { maxLength: 12, selector: (s) => s.transaction.transactionId }),
      ],
      { numRuns: 40 },
    )('answers every transaction and event as an engine on the memory store does', async (requests, sequences) => {
      const engine = createEngine();
      for (const request of requests) await engine.createRuleInstance(request);
      const ruleSet = createRuleSet(await engine.listRuleInstances());
      const store = createAggregateStore();
      const states = new Map<string, { request: Transaction; events: SequencedEvent[]; current: Transaction }>();
      // Creates first, then each transaction's events: in this order, both sides see the same history.
      const operations = [
        ...sequences.map((s) => ({ kind: 'create' as const, body: s.transaction })),
        ...sequences.flatMap((s) => s.events.map((body) => ({ kind: 'event' as const, body }))),
      ];
      for (const operation of operations) {
        if (operation.kind === 'create') {
          const live = await engine.createTransaction(operation.body);
          const transaction = initialTransaction(operation.body);
          const pure = runRuleSet({ ruleSet, store, transaction });
          states.set(transaction.transactionId, { request: operation.body, events: [], current: transaction });
          expect(pure.result).toEqual({ executedRules: live.executedRules, hitRules: live.hitRules, status: live.status });
          continue;
        }
        const state = states.get(operation.body.transactionId) as { request: Transaction; events: SequencedEvent[]; current: Transaction };
        const events = [...state.events, { event: operation.body, arrival: state.events.length }];
        let next: Transaction | null = null;
        try {
          next = foldTransactionEvents(initialTransaction(state.request), events);
        } catch {
          next = null;
        }
        const live = await engine.createTransactionEvent(operation.body).catch((error: unknown) => error);
        if (next === null) {
          expect(isTxmonError(live)).toBe(true);
          continue;
        }
        const pure = runRuleSet({ ruleSet, store, transaction: next, previous: state.current });
        state.events = events;
        state.current = next;
        const answered = live as { executedRules: unknown; hitRules: unknown; status: unknown };
        expect(pure.result).toEqual({ executedRules: answered.executedRules, hitRules: answered.hitRules, status: answered.status });
      }
    });
  });
});
