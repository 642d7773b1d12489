import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRepositories, type EngineOptions } from '../../src/index.js';
import { transactionsArbitrary } from '../arbitraries/index.js';
import { DAY, HOUR, T0, testEngine, tx } from '../helpers.js';

/**
 * Review of D-139 (73d8258): user-series entries carry values only while an active instance reads
 * them. Every scenario compares an engine that always keeps every series with its values
 * (`maintainSeries: 'all'`) with the default on-demand engine; their answers must be equal.
 */

type Engine = ReturnType<typeof testEngine>['engine'];
const WINDOW = { units: 30, granularity: 'day', rollingBasis: true };

const R10 = { ruleId: 'R-10', parameters: { sendersCount: 2, timeWindow: WINDOW } };
const R30 = { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' } };

async function attempt<T>(fn: () => Promise<T>): Promise<T | string> {
  try {
    return await fn();
  } catch (error) {
    return String((error as { code?: string }).code ?? error);
  }
}

function hitIds(r: unknown): string[] {
  if (typeof r === 'string') return [r];
  return (r as { hitRules: { ruleId: string }[] }).hitRules.map((h) => h.ruleId).sort();
}

describe('BUG-1: engines sharing repositories (keptValues is per engine, the entries are shared)', () => {
  it('BUG-1 (fixed) an engine that re-creates a value reader must refill entries another engine wrote without values', async () => {
    // Reference: one engine keeping every series with values.
    const reference = testEngine({ maintainSeries: 'all' }).engine;
    // Admin node (instance writes) and ingestion node on the same repositories, same rule set.
    const repositories = createMemoryRepositories();
    const admin = testEngine({ repositories }).engine;
    const ingest = testEngine({ repositories }).engine;

    for (const e of [reference, admin]) {
      await e.createRuleInstance(R30);
    }
    const readers = await Promise.all([reference, admin].map((e) => e.createRuleInstance(R10)));
    // The reader is switched off for a while: the ingestion node keeps entries without values.
    await reference.updateRuleInstance(readers[0]!.id, { status: 'INACTIVE' });
    await admin.updateRuleInstance(readers[1]!.id, { status: 'INACTIVE' });
    for (const counterparty of ['bob', 'carol']) {
      const t = tx({ timestamp: T0 - 2 * HOUR, destinationUserId: counterparty });
      expect(hitIds(await attempt(() => ingest.createTransaction(t)))).toEqual(hitIds(await attempt(() => reference.createTransaction(t))));
    }
    // The admin node switches the reader back on: it believes every kept entry has its values.
    await reference.updateRuleInstance(readers[0]!.id, { status: 'ACTIVE' });
    await admin.updateRuleInstance(readers[1]!.id, { status: 'ACTIVE' });
    expect((await repositories.aggregates.entries('user-all', 'alice')).map((e) => e.values?.counterparty ?? null)).toEqual(['bob', 'carol']);
  });

  it('BUG-1 (fixed, decision) the admin node must then evaluate with the counterparties of history', async () => {
    const reference = testEngine({ maintainSeries: 'all' }).engine;
    const repositories = createMemoryRepositories();
    const admin = testEngine({ repositories }).engine;
    const ingest = testEngine({ repositories }).engine;
    for (const e of [reference, admin]) await e.createRuleInstance(R30);
    const readers = await Promise.all([reference, admin].map((e) => e.createRuleInstance(R10)));
    await reference.deleteRuleInstance(readers[0]!.id);
    await admin.deleteRuleInstance(readers[1]!.id);
    for (const counterparty of ['bob', 'carol']) {
      const t = tx({ timestamp: T0 - 2 * HOUR, destinationUserId: counterparty });
      await reference.createTransaction(t);
      await ingest.createTransaction(t);
    }
    await reference.createRuleInstance(R10);
    await admin.createRuleInstance(R10);
    // alice now has 3 distinct counterparties (> sendersCount 2): R-10 hits on the reference.
    const t = tx({ timestamp: T0 - HOUR, destinationUserId: 'dave' });
    const expected = await reference.createTransaction(t);
    const actual = await admin.createTransaction(t);
    expect(hitIds(expected)).toContain('R-10');
    expect(hitIds(actual)).toEqual(hitIds(expected));
  });
});

// ---- single engine: differential sequences of instance writes, transactions and events ----------

const MENU: Record<string, unknown>[] = [
  // value readers
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: WINDOW } },
  { ruleId: 'R-123', parameters: { transactionsLimit: 1, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' } },
  { ruleId: 'R-125', parameters: { transactionStates: ['DECLINED', 'REFUNDED'], threshold: 10, minimumTransactions: 1, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' } },
  { ruleId: 'R-125', parameters: { transactionStates: ['DECLINED'], threshold: 10, minimumTransactions: 1, timeWindow: WINDOW, checkSender: 'sending', checkReceiver: 'none' }, filters: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] } },
  { ruleId: 'R-41' },
  {
    logic: { '>=': [{ var: 'agg.u' }, 2] },
    logicAggregationVariables: [
      { key: 'u', aggregationFunc: 'UNIQUE_COUNT', aggregationFieldKey: 'destinationUserId', userDirection: 'SENDER', transactionDirection: 'SENDING', timeWindow: { start: { units: 30, granularity: 'day', rollingBasis: true }, end: { units: 0, granularity: 'now' } } },
    ],
  },
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: WINDOW }, filters: { transactionTypesHistorical: ['TRANSFER'] } },
  // counting / summing only
  R30,
  { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 2000 }, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all', initialTransactions: 1 } },
  { ruleId: 'R-1' },
  { ruleId: 'R-119' },
  { ruleId: 'R-126' },
  { ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 0, max: 5000 } }, lowTransactionCount: 2 } },
  { ruleId: 'R-131', parameters: { checkSender: 'all', checkReceiver: 'all', initialTransactions: 1 } },
  { ruleId: 'R-30', parameters: { transactionsLimit: 0, timeWindow: WINDOW }, filters: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] } },
  { ruleId: 'R-5' },
];

/** Dense histories: 4 users, a few days, several types and countries (the value readers hit often). */
const denseTransactions = fc
  .array(
    fc.record({
      hoursBefore: fc.nat(72),
      origin: fc.constantFrom('u-1', 'u-2', 'u-3', 'u-4'),
      destination: fc.constantFrom('u-1', 'u-2', 'u-3', 'u-4', null),
      type: fc.constantFrom('TRANSFER', 'DEPOSIT', 'WITHDRAWAL'),
      amount: fc.constantFrom(100, 999, 1000, 2500),
      country: fc.constantFrom('DE', 'FR', 'US'),
      state: fc.constantFrom('CREATED', 'SUCCESSFUL', 'DECLINED'),
    }),
    { maxLength: 20 },
  )
  .map((rows) =>
    rows.map((r, i) => ({
      type: r.type,
      transactionId: `d-${i}`,
      timestamp: T0 - r.hoursBefore * HOUR + i,
      transactionState: r.state,
      originUserId: r.origin,
      ...(r.destination !== null ? { destinationUserId: r.destination } : {}),
      originAmountDetails: { transactionAmount: r.amount, transactionCurrency: 'USD', country: r.country },
      destinationAmountDetails: { transactionAmount: r.amount, transactionCurrency: 'USD', country: r.country === 'DE' ? 'FR' : 'DE' },
    })),
  );

type Op =
  | { kind: 'tx'; i: number }
  | { kind: 'event'; target: number; state: string; amount: number | null }
  | { kind: 'create'; menu: number }
  | { kind: 'update'; target: number; change: number; menu: number }
  | { kind: 'delete'; target: number };

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('tx' as const), i: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('event' as const),
      target: fc.nat(),
      state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED', 'PROCESSING'),
      amount: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: null }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), menu: fc.nat(MENU.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), target: fc.nat(), change: fc.nat(5), menu: fc.nat(MENU.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }) },
);

/** Applies `op` to an engine; `ids` are the instance ids and transaction ids known (shared shape). */
async function apply(e: Engine, op: Op, transactions: Record<string, unknown>[], state: { instances: string[]; txIds: string[]; next: number; eventAt: number }) {
  switch (op.kind) {
    case 'tx': {
      const t = transactions[state.next % Math.max(transactions.length, 1)];
      if (!t) return 'none';
      return e.createTransaction(t);
    }
    case 'event': {
      if (state.txIds.length === 0) return 'none';
      const id = state.txIds[op.target % state.txIds.length] as string;
      const event: Record<string, unknown> = { transactionId: id, timestamp: state.eventAt, transactionState: op.state };
      if (op.amount !== null) {
        event.updatedTransactionAttributes = { originAmountDetails: { transactionAmount: op.amount, transactionCurrency: 'USD' } };
      }
      return e.createTransactionEvent(event);
    }
    case 'create':
      return e.createRuleInstance(MENU[op.menu] as Record<string, unknown>);
    case 'update': {
      if (state.instances.length === 0) return 'none';
      const id = state.instances[op.target % state.instances.length] as string;
      const changes: Record<string, unknown>[] = [
        { status: 'INACTIVE' },
        { status: 'ACTIVE' },
        { mode: 'SHADOW' },
        { mode: 'LIVE', status: 'ACTIVE' },
        MENU[op.menu] as Record<string, unknown>, // may change the rule (reader <-> counter)
        { filters: {} },
      ];
      return e.updateRuleInstance(id, changes[op.change] as Record<string, unknown>);
    }
    case 'delete': {
      if (state.instances.length === 0) return 'none';
      const id = state.instances[op.target % state.instances.length] as string;
      return e.deleteRuleInstance(id);
    }
  }
}

describe('single engine: instance writes, transactions and events in any order', () => {
  let comparisons = 0;
  const readerHits: Record<string, number> = {};
  afterAll(() => {
    // The comparison says little unless value readers hit.
    for (const id of ['R-10', 'R-123', 'R-125', 'CUSTOM']) expect(readerHits[id] ?? 0).toBeGreaterThan(0);
  });
  test.prop(
    [fc.oneof(denseTransactions, transactionsArbitrary({ maxLength: 16, userIds: ['u-1', 'u-2', 'u-3'] })) as fc.Arbitrary<Record<string, unknown>[]>, fc.array(opArbitrary, { minLength: 1, maxLength: 40 }), fc.subarray(MENU.map((_, i) => i), { maxLength: 6 })],
    { numRuns: 300 },
  )('answers equal an always-kept engine', async (transactions, ops, initial) => {
    const kept = testEngine({ maintainSeries: 'all' }).engine;
    const onDemand = testEngine().engine;
    const st = { instances: [] as string[], txIds: [] as string[], next: 0, eventAt: T0 + 40 * DAY };
    for (const op of [...initial.map((menu): Op => ({ kind: 'create', menu })), ...ops]) {
      const a = await attempt(() => apply(kept, op, transactions, st));
      const b = await attempt(() => apply(onDemand, op, transactions, st));
      expect(b).toEqual(a);
      comparisons += 1;
      if (typeof a === 'object' && a !== null && 'hitRules' in a) {
        for (const h of (a as { hitRules: { ruleId: string }[] }).hitRules) readerHits[h.ruleId] = (readerHits[h.ruleId] ?? 0) + 1;
      }
      if (op.kind === 'tx') {
        const t = transactions[st.next % Math.max(transactions.length, 1)];
        if (t && typeof a !== 'string' && !st.txIds.includes(t.transactionId as string)) st.txIds.push(t.transactionId as string);
        st.next += 1;
      }
      if (op.kind === 'event') st.eventAt += 1000;
      if (op.kind === 'create' && typeof a !== 'string') st.instances.push((a as { id: string }).id);
      if (op.kind === 'delete' && typeof a !== 'string' && st.instances.length > 0) {
        st.instances.splice(op.target % st.instances.length, 1);
      }
    }
    expect(comparisons).toBeGreaterThan(0);
  });
});

// ---- events change the state while values are off; a later refill must see the latest state ----

describe('events while values are off', () => {
  it('a state change made while only counting rules run is seen by a value reader created later (R-125 countIn state)', async () => {
    const kept = testEngine({ maintainSeries: 'all' }).engine;
    const onDemand = testEngine().engine;
    const R125 = { ruleId: 'R-125', parameters: { transactionStates: ['DECLINED'], threshold: 20, minimumTransactions: 2, timeWindow: WINDOW, checkSender: 'sending', checkReceiver: 'none' } };
    for (const e of [kept, onDemand]) await e.createRuleInstance(R30);
    const t1 = tx({ timestamp: T0 - 3 * HOUR });
    const t2 = tx({ timestamp: T0 - 2 * HOUR });
    for (const e of [kept, onDemand]) {
      await e.createTransaction(t1);
      await e.createTransaction(t2);
      await e.createTransactionEvent({ transactionId: t1.transactionId as string, timestamp: T0, transactionState: 'DECLINED' });
      await e.createRuleInstance(R125);
    }
    const t3 = tx({ timestamp: T0 - HOUR });
    const a = await kept.createTransaction(t3);
    const b = await onDemand.createTransaction(t3);
    expect(hitIds(a)).toContain('R-125');
    expect(b).toEqual(a);
  });
});

// ---- a rule-instance write whose repository put fails after the fill ran ------------------------

/** Memory repositories whose next `ruleInstances.put` rejects when `failNextPut` is set. */
function flakyRepositories() {
  const inner = createMemoryRepositories();
  const control = { failNextPut: false };
  const repositories = {
    ...inner,
    ruleInstances: {
      ...inner.ruleInstances,
      async put(stored: Parameters<typeof inner.ruleInstances.put>[0]) {
        if (control.failNextPut) {
          control.failNextPut = false;
          throw new Error('put failed (storage unavailable)');
        }
        return inner.ruleInstances.put(stored);
      },
    },
  } as typeof inner;
  return { repositories, control };
}

/** A kept engine and an on-demand engine, each on its own flaky repositories. */
function flakyPair(options: EngineOptions = {}) {
  const k = flakyRepositories();
  const o = flakyRepositories();
  const kept = testEngine({ ...options, repositories: k.repositories, maintainSeries: 'all' }).engine;
  const onDemand = testEngine({ ...options, repositories: o.repositories }).engine;
  const failNextPut = () => {
    k.control.failNextPut = true;
    o.control.failNextPut = true;
  };
  const both = async <T>(fn: (e: Engine) => Promise<T>) => [await attempt(() => fn(kept)), await attempt(() => fn(onDemand))] as const;
  return { kept, onDemand, failNextPut, both, onDemandRepositories: o.repositories };
}

/** Runs `fn` with `value` (one transaction for both engines). */
function once<V, T>(value: V, fn: (v: V) => T): T {
  return fn(value);
}

const R123 = { ruleId: 'R-123', parameters: { transactionsLimit: 1, timeWindow: WINDOW, checkSender: 'sending', checkReceiver: 'none' } };

describe('failed instance writes', () => {
  it('a reader whose write failed after the refill, then written again, decides as the kept engine', async () => {
    const { failNextPut, both } = flakyPair();
    await both((e) => e.createRuleInstance(R30));
    for (const c of ['bob', 'carol']) await once(tx({ timestamp: T0 - 3 * HOUR, destinationUserId: c }), (t) => both((e) => e.createTransaction(t)));
    failNextPut();
    const [fa, fb] = await both((e) => e.createRuleInstance(R123));
    expect(fb).toEqual(fa);
    await once(tx({ timestamp: T0 - 2 * HOUR, destinationUserId: 'dave' }), (t) => both((e) => e.createTransaction(t)));
    await both((e) => e.createRuleInstance(R123));
    const [a, b] = await once(tx({ timestamp: T0 - HOUR, destinationUserId: 'erin', destinationAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'GB' } }), (t) => both((e) => e.createTransaction(t)));
    expect(b).toEqual(a);
  });

  it('BUG-2 (fixed) a failed update that refilled only the series the new version reads must not leave other kept series without values', async () => {
    const { failNextPut, both, onDemandRepositories } = flakyPair();
    // Counting only: user-sending / user-receiving / user-all are kept without values.
    const [counter] = await both((e) => e.createRuleInstance(R30));
    const id = (counter as { id: string }).id;
    // Two counterparty countries (FR, GB) for alice's sent transactions.
    await once(tx({ timestamp: T0 - 3 * HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'FR' } }), (t) => both((e) => e.createTransaction(t)));
    await once(tx({ timestamp: T0 - 2 * HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'GB' } }), (t) => both((e) => e.createTransaction(t)));
    // The counter is turned into a value reader of user-all only; the fill refills user-all
    // with values and sets keptValues, then the repository rejects the write.
    failNextPut();
    const [fa, fb] = await both((e) => e.updateRuleInstance(id, { ruleId: 'R-10', parameters: { sendersCount: 5, timeWindow: WINDOW } }));
    expect(fb).toEqual(fa);
    expect(typeof fb).toBe('string');
    // A reader of user-sending is created next: no refill (keptValues is true), user-sending has no values.
    await both((e) => e.createRuleInstance(R123));
    const [a, b] = await once(tx({ timestamp: T0 - HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'US' } }), (t) => both((e) => e.createTransaction(t)));
    expect(hitIds(a)).toContain('R-123');
    expect(hitIds(b)).toEqual(hitIds(a));
    expect((await onDemandRepositories.aggregates.entries('user-sending', 'alice')).map((e) => e.values?.counterpartyCountry ?? null)).toEqual(['FR', 'GB', 'US']);
  });

  it('BUG-3 (fixed; from D-125) a failed write must not leave a filled series kept that the prepared state does not maintain', async () => {
    const { failNextPut, both } = flakyPair();
    const [reader] = await both((e) => e.createRuleInstance({ ruleId: 'R-10', parameters: { sendersCount: 5, timeWindow: WINDOW } }));
    const id = (reader as { id: string }).id;
    const R119 = { ruleId: 'R-119', parameters: { transactionsLimit: 1, timeWindow: WINDOW } };
    // The update fills user-pair (new), then the write fails: user-pair stays "kept" but the
    // prepared state (R-10 only) does not write it.
    failNextPut();
    await both((e) => e.updateRuleInstance(id, R119));
    await once(tx({ timestamp: T0 - 2 * HOUR }), (t) => both((e) => e.createTransaction(t)));
    await both((e) => e.updateRuleInstance(id, R119));
    // alice -> bob twice in the window: R-119 (more than 1) hits on the kept engine.
    const [a, b] = await once(tx({ timestamp: T0 - HOUR }), (t) => both((e) => e.createTransaction(t)));
    expect(hitIds(a)).toContain('R-119');
    expect(hitIds(b)).toEqual(hitIds(a));
  });
});

