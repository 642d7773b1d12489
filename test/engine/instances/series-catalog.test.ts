/**
 * The series the repositories hold for an engine's active instances (src/engine/instances/series-catalog.ts):
 * a series is kept while some instance reads it, filled from the stored transactions when one starts
 * reading it and dropped when none does; user-series entries carry their values only while some
 * instance reads them. Most tests compare an engine that keeps every series with its values
 * (`maintainSeries: 'all'`) with the default on-demand engine: their answers must be equal.
 */
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { compileHistoricalFilters, createMemoryRepositories } from '../../../src/internals.js';
import { transactionsArbitrary } from '../../arbitraries/index.js';
import { DAY, HOUR, T0, testEngine, tx, type TransactionEventInput, type TransactionInput } from '../../helpers.js';
import { pairKey } from '../../../src/rules/series.js';
import { WINDOW, R30, attempt, hitIds, hitRuleIds, ruleHits, velocity, filtered, TRANSFERS, derivedName } from './fixtures.js';
import type { TransactionState } from '../../../src/domain/enums.js';

type Engine = ReturnType<typeof testEngine>['engine'];

/** Instances over every built-in series: user sending/receiving/all, pairs, payment identifiers, IPs. */
const MENU: Record<string, unknown>[] = [
  {
    ruleId: 'R-30',
    parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'all', checkReceiver: 'all' },
  },
  {
    ruleId: 'R-69',
    parameters: {
      transactionVolumeThreshold: { USD: 2000 },
      timeWindow: { units: 30, granularity: 'day', rollingBasis: true },
      checkSender: 'all',
      checkReceiver: 'all',
    },
  },
  { ruleId: 'R-119' },
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } },
  { ruleId: 'R-52', parameters: { uniqueUsersCountThreshold: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } },
  { ruleId: 'R-94' },
  { ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 0, max: 5000 } }, lowTransactionCount: 2 } },
  {
    ruleId: 'R-30',
    parameters: { transactionsLimit: 0, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } },
    filters: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] },
  },
  // Instances whose parameters read some of their rule's series only.
  {
    ruleId: 'R-30',
    parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'none', checkReceiver: 'all' },
  },
  {
    ruleId: 'R-69',
    parameters: {
      transactionVolumeThreshold: { USD: 1500 },
      timeWindow: { units: 30, granularity: 'day', rollingBasis: true },
      checkSender: 'sending',
      checkReceiver: 'none',
    },
  },
  { ruleId: 'R-131', parameters: { initialTransactions: 2, checkSender: 'sending', checkReceiver: 'receiving' } },
  { ruleId: 'R-77', parameters: { checkSender: 'all', checkReceiver: 'receiving' } },
];

/**
 * An engine keeping every series (with values) and one keeping them on demand, and a runner that
 * applies one call to both and returns both answers (an error as its code).
 */
function keptAndOnDemand() {
  const kept = testEngine({ maintainSeries: 'all' }).engine;
  const onDemand = testEngine().engine;
  const both = async <T>(fn: (e: typeof kept) => Promise<T>): Promise<[T | string, T | string]> => {
    const run = async (e: typeof kept) => {
      try {
        return await fn(e);
      } catch (error) {
        return String((error as { code?: string }).code ?? error);
      }
    };
    return [await run(kept), await run(onDemand)];
  };
  return { kept, onDemand, both };
}

describe('createSeriesCatalog: a series is kept while an instance reads it', () => {
  it('keeps no series while no instance reads one, and fills a series from history when one starts reading it', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(0);
    const instance = await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 1 } });
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(1);
    expect(await repositories.aggregates.listEntries('user-pair', pairKey('alice', 'bob'))).toHaveLength(0);
    await engine.deleteRuleInstance(instance.id);
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(0);
  });

  it('maintainSeries keeps series no instance reads; an unknown name is a configuration error', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories, maintainSeries: ['user-pair'] });
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(await repositories.aggregates.listEntries('user-pair', pairKey('alice', 'bob'))).toHaveLength(1);
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(0);
    expect(() => testEngine({ maintainSeries: ['user-nope' as never] })).toThrow(/maintainSeries/);
  });
});

describe('createSeriesCatalog: entry values are kept while an instance reads them', () => {
  const R10 = { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } };

  it('keeps user-series entries without values while only counting rules read them, and refills them when a value reader starts', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 5 } });
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    const [bare] = await repositories.aggregates.listEntries('user-sending', 'alice');
    expect(bare).toBeDefined();
    expect(bare?.values).toBeUndefined();
    const reader = await engine.createRuleInstance(R10);
    const [filled] = await repositories.aggregates.listEntries('user-sending', 'alice');
    expect(filled?.values).toMatchObject({ counterparty: 'bob', type: 'TRANSFER' });
    // The value reader leaves: new entries are kept without values again; when it comes back the
    // series are refilled, so the entry written in between has its values too.
    await engine.deleteRuleInstance(reader.id);
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect((await repositories.aggregates.listEntries('user-sending', 'alice')).map((e) => e.values === undefined)).toEqual([false, true]);
    await engine.createRuleInstance(R10);
    expect((await repositories.aggregates.listEntries('user-sending', 'alice')).map((e) => e.values?.counterparty)).toEqual(['bob', 'bob']);
  });

  test.prop(
    [
      transactionsArbitrary({ maxLength: 16, userIds: ['u-1', 'u-2', 'u-3'] }),
      fc.nat(16),
      fc.nat(16),
      fc.boolean(),
      fc.array(fc.record({ target: fc.nat(), state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED') }), { maxLength: 4 }),
    ],
    { numRuns: 40 },
  )('a value reader created after a counting-only period decides as if values had always been kept', async (transactions, a, b, leaveAndReturn, events) => {
    const { kept, onDemand, both } = keptAndOnDemand();
    const first = a % (transactions.length + 1);
    const second = first + (b % (transactions.length - first + 1));
    for (const e of [kept, onDemand]) await e.createRuleInstance(MENU[0] as Record<string, unknown>);
    for (const t of transactions.slice(0, first)) {
      const [x, y] = await both((e) => e.createTransaction(t));
      expect(y).toEqual(x);
    }
    const ids = transactions.slice(0, first).map((t) => t.transactionId);
    for (const ev of events) {
      if (ids.length === 0) break;
      const [x, y] = await both((e) =>
        e.createTransactionEvent({
          transactionId: ids[ev.target % ids.length] as string,
          timestamp: T0 + 40 * 24 * HOUR + ev.target,
          transactionState: ev.state,
        }),
      );
      expect(y).toEqual(x);
    }
    let readers = await Promise.all([kept, onDemand].map((e) => e.createRuleInstance(R10)));
    for (const t of transactions.slice(first, second)) {
      const [x, y] = await both((e) => e.createTransaction(t));
      expect(y).toEqual(x);
    }
    if (leaveAndReturn) {
      await kept.deleteRuleInstance((readers[0] as { id: string }).id);
      await onDemand.deleteRuleInstance((readers[1] as { id: string }).id);
      const middle = second + Math.floor((transactions.length - second) / 2);
      for (const t of transactions.slice(second, middle)) {
        const [x, y] = await both((e) => e.createTransaction(t));
        expect(y).toEqual(x);
      }
      readers = await Promise.all([kept, onDemand].map((e) => e.createRuleInstance(R10)));
      for (const t of transactions.slice(middle)) {
        const [x, y] = await both((e) => e.createTransaction(t));
        expect(y).toEqual(x);
      }
    } else {
      for (const t of transactions.slice(second)) {
        const [x, y] = await both((e) => e.createTransaction(t));
        expect(y).toEqual(x);
      }
    }
  });

  it('a state change made while only counting rules run is seen by a value reader created later (R-125 countIn state)', async () => {
    const kept = testEngine({ maintainSeries: 'all' }).engine;
    const onDemand = testEngine().engine;
    const R125 = {
      ruleId: 'R-125',
      parameters: { transactionStates: ['DECLINED'], threshold: 20, minimumTransactions: 2, timeWindow: WINDOW, checkSender: 'sending', checkReceiver: 'none' },
    };
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

describe('createSeriesCatalog: the series an instance’s parameters read', () => {
  const R30 = (checkSender: string, checkReceiver: string) => ({
    ruleId: 'R-30',
    parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender, checkReceiver },
  });

  it('keeps only the series the parameters read', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(R30('sending', 'receiving'));
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(1);
    expect(await repositories.aggregates.listEntries('user-receiving', 'bob')).toHaveLength(1);
    expect(await repositories.aggregates.listEntries('user-all', 'alice')).toHaveLength(0);
  });

  test.prop(
    [
      transactionsArbitrary({ maxLength: 14, userIds: ['u-1', 'u-2', 'u-3'] }),
      fc.nat(14),
      fc.constantFrom('sending', 'all', 'none'),
      fc.constantFrom('receiving', 'all', 'none'),
      fc.constantFrom('sending', 'all', 'none'),
      fc.constantFrom('receiving', 'all', 'none'),
    ],
    { numRuns: 40 },
  )('an instance updated to read other series decides as if every series had always been kept', async (transactions, split, s1, r1, s2, r2) => {
    const { kept, onDemand, both } = keptAndOnDemand();
    const created = await Promise.all([kept, onDemand].map((e) => e.createRuleInstance(R30(s1, r1))));
    const cut = split % (transactions.length + 1);
    for (const t of transactions.slice(0, cut)) {
      const [a, b] = await both((e) => e.createTransaction(t));
      expect(b).toEqual(a);
    }
    await kept.updateRuleInstance((created[0] as { id: string }).id, R30(s2, r2));
    await onDemand.updateRuleInstance((created[1] as { id: string }).id, R30(s2, r2));
    for (const t of transactions.slice(cut)) {
      const [a, b] = await both((e) => e.createTransaction(t));
      expect(b).toEqual(a);
    }
  });
});

describe('createSeriesCatalog: instance writes on one engine', () => {
  it('a SHADOW instance keeps its series: deleting the LIVE reader does not drop what the shadow one reads', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const live = await engine.createRuleInstance(velocity());
    await engine.createRuleInstance(velocity(1, { mode: 'SHADOW' }));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    await engine.deleteRuleInstance(live.id);
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(1);
    const r = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(r.hitRules.map((h) => h.isShadow)).toEqual([true]);
    expect(r.status).toBe('ALLOW');
  });

  it('ACTIVE → INACTIVE drops the series; INACTIVE → ACTIVE refills it with what arrived meanwhile (events included)', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const inst = await engine.createRuleInstance(velocity(1, { filters: { transactionStatesHistorical: ['SUCCESSFUL'] } }));
    const t1 = tx({ timestamp: T0 - 3 * HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(t1);
    await engine.updateRuleInstance(inst.id, { status: 'INACTIVE' });
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(0);
    const t2 = tx({ timestamp: T0 - 2 * HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(t2);
    // t1 leaves the filtered history while the instance is inactive.
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'REFUNDED' });
    await engine.updateRuleInstance(inst.id, { status: 'ACTIVE' });
    // Only the derived series is kept, and it holds t2 alone (t1 was refunded while nobody read it).
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(0);
    const derived = `user-sending~${compileHistoricalFilters({ transactionStatesHistorical: ['SUCCESSFUL'] })?.id as string}`;
    expect((await repositories.aggregates.listEntries(derived, 'alice')).map((e) => e.id)).toEqual([t2.transactionId]);
    const r = await engine.createTransaction(tx({ timestamp: T0, transactionState: 'SUCCESSFUL' }));
    expect(hitRuleIds(r)).toEqual(['R-30']);
  });

  it('a derived series whose base is not kept: a state event moves the transaction out (removal refs use the stored version)', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(velocity(1, { filters: { transactionStatesHistorical: ['PROCESSING', 'SUCCESSFUL'] } }));
    const t1 = tx({ timestamp: T0 - 2 * HOUR, transactionState: 'PROCESSING' });
    await engine.createTransaction(t1);
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'SUSPENDED' });
    const r = await engine.createTransaction(tx({ timestamp: T0, transactionState: 'SUCCESSFUL' }));
    expect(hitRuleIds(r)).toEqual([]);
    // and back in
    await engine.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR / 2, transactionState: 'SUCCESSFUL' });
    const r2 = await engine.createTransaction(tx({ timestamp: T0 + 1, transactionState: 'SUCCESSFUL' }));
    expect(hitRuleIds(r2)).toEqual(['R-30']);
  });

  it('a custom aggregation variable reading a base no library instance reads: filled on create, kept when the library reader goes', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const eur = { transactionAmount: 10, transactionCurrency: 'EUR' };
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR, destinationUserId: 'bob', originAmountDetails: eur, destinationAmountDetails: eur }));
    const lib = await engine.createRuleInstance({
      ruleId: 'R-30',
      parameters: { transactionsLimit: 100, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'none', checkReceiver: 'receiving' },
    });
    await engine.createRuleInstance({
      logic: { '>=': [{ var: 'agg.n' }, 2] },
      logicAggregationVariables: [
        {
          key: 'n',
          aggregationFunc: 'COUNT',
          userDirection: 'RECEIVER',
          transactionDirection: 'RECEIVING',
          timeWindow: { start: { units: 1, granularity: 'day', rollingBasis: true }, end: { units: 0, granularity: 'now' } },
        },
      ],
    });
    await engine.deleteRuleInstance(lib.id);
    expect(await repositories.aggregates.listEntries('user-receiving', 'bob')).toHaveLength(1);
    const r = await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(hitRuleIds(r)).toEqual(['CUSTOM']);
  });
});

describe('createSeriesCatalog: derived (filtered) series', () => {
  it('two instances sharing one derived series: deleting one keeps the series for the other', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const a = await engine.createRuleInstance(filtered(TRANSFERS));
    await engine.createRuleInstance(filtered(TRANSFERS, { mode: 'SHADOW' }));
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    await engine.deleteRuleInstance(a.id);
    expect(await repositories.aggregates.listEntries(derivedName('user-sending', TRANSFERS), 'alice')).toHaveLength(2);
    const alertsBefore = (await engine.listAlerts()).length;
    const result = await engine.createTransaction(tx({ timestamp: T0 }));
    // The remaining SHADOW instance hits (reported) but makes no alert.
    expect(ruleHits(result, 'R-30')).toEqual(['ORIGIN']);
    expect(await engine.listAlerts()).toHaveLength(alertsBefore);
  });

  it('an amount event moves a past transaction out of an amount-range series; a late event refolds it back in', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const filters = { transactionAmountRangeHistorical: { EUR: { max: 500 } } };
    await engine.createRuleInstance(filtered(filters));
    const past = tx({ timestamp: T0 - HOUR, transactionState: 'PROCESSING' });
    await engine.createTransaction(past);
    const name = derivedName('user-sending', filters);
    expect(await repositories.aggregates.listEntries(name, 'alice')).toHaveLength(1);
    await engine.createTransactionEvent({
      transactionId: past.transactionId,
      timestamp: T0 - HOUR + 20,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 900, transactionCurrency: 'EUR', country: 'DE' } },
    });
    expect(await repositories.aggregates.listEntries(name, 'alice')).toHaveLength(0);
    // A late event (before the previous one) changes the amount too, but the later event wins the fold.
    await engine.createTransactionEvent({
      transactionId: past.transactionId,
      timestamp: T0 - HOUR + 10,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 50, transactionCurrency: 'EUR', country: 'DE' } },
    });
    expect(await repositories.aggregates.listEntries(name, 'alice')).toHaveLength(0);
    await engine.createTransactionEvent({
      transactionId: past.transactionId,
      timestamp: T0 - HOUR + 30,
      transactionState: 'PROCESSING',
      updatedTransactionAttributes: { originAmountDetails: { transactionAmount: 60, transactionCurrency: 'EUR', country: 'DE' } },
    });
    const entries = await repositories.aggregates.listEntries(name, 'alice');
    // The same transaction created directly with 60 EUR gives the same derived entry.
    const direct = createMemoryRepositories();
    const other = testEngine({ repositories: direct }).engine;
    await other.createRuleInstance(filtered(filters));
    await other.createTransaction({ ...past, originAmountDetails: { transactionAmount: 60, transactionCurrency: 'EUR', country: 'DE' } });
    expect(entries).toEqual(await direct.aggregates.listEntries(name, 'alice'));
  });

  it('idempotent replays of a transaction and an event add nothing twice to a derived series', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(filtered({ transactionStatesHistorical: ['SUCCESSFUL'] }));
    const payload = tx({ timestamp: T0 - HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(payload);
    await engine.createTransaction(payload);
    const event: TransactionEventInput = { eventId: 'ev-1', transactionId: payload.transactionId, timestamp: T0, transactionState: 'SUCCESSFUL' };
    await engine.createTransactionEvent(event);
    await engine.createTransactionEvent(event);
    expect(await repositories.aggregates.listEntries(derivedName('user-sending', { transactionStatesHistorical: ['SUCCESSFUL'] }), 'alice')).toHaveLength(1);
  });

  it('no historical filter: no derived series is written', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(filtered({ transactionTypes: ['TRANSFER'] }));
    const scanned: string[] = [];
    const original = repositories.aggregates.replaceSeries;
    repositories.aggregates.replaceSeries = async (series, entries) => {
      scanned.push(series);
      return original(series, entries);
    };
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    const result = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(ruleHits(result, 'R-30')).toEqual(['ORIGIN']);
    expect(scanned).toEqual([]);
  });
});

/** Instance requests for the differential sequences: value readers, then counting / summing only. */
const VALUE_MENU: Record<string, unknown>[] = [
  // value readers
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: WINDOW } },
  { ruleId: 'R-123', parameters: { transactionsLimit: 1, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all' } },
  {
    ruleId: 'R-125',
    parameters: {
      transactionStates: ['DECLINED', 'REFUNDED'],
      threshold: 10,
      minimumTransactions: 1,
      timeWindow: WINDOW,
      checkSender: 'all',
      checkReceiver: 'all',
    },
  },
  {
    ruleId: 'R-125',
    parameters: { transactionStates: ['DECLINED'], threshold: 10, minimumTransactions: 1, timeWindow: WINDOW, checkSender: 'sending', checkReceiver: 'none' },
    filters: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] },
  },
  { ruleId: 'R-41' },
  {
    logic: { '>=': [{ var: 'agg.u' }, 2] },
    logicAggregationVariables: [
      {
        key: 'u',
        aggregationFunc: 'UNIQUE_COUNT',
        aggregationFieldKey: 'destinationUserId',
        userDirection: 'SENDER',
        transactionDirection: 'SENDING',
        timeWindow: { start: { units: 30, granularity: 'day', rollingBasis: true }, end: { units: 0, granularity: 'now' } },
      },
    ],
  },
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: WINDOW }, filters: { transactionTypesHistorical: ['TRANSFER'] } },
  // counting / summing only
  R30,
  {
    ruleId: 'R-69',
    parameters: { transactionVolumeThreshold: { USD: 2000 }, timeWindow: WINDOW, checkSender: 'all', checkReceiver: 'all', initialTransactions: 1 },
  },
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
  | { kind: 'event'; target: number; state: TransactionState; amount: number | null }
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
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('create' as const), menu: fc.nat(VALUE_MENU.length - 1) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('update' as const), target: fc.nat(), change: fc.nat(5), menu: fc.nat(VALUE_MENU.length - 1) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), target: fc.nat() }) },
);

/** Applies `op` to an engine; `ids` are the instance ids and transaction ids known (shared shape). */
async function apply(e: Engine, op: Op, transactions: TransactionInput[], state: { instances: string[]; txIds: string[]; next: number; eventAt: number }) {
  switch (op.kind) {
    case 'tx': {
      const t = transactions[state.next % Math.max(transactions.length, 1)];
      if (!t) return 'none';
      return e.createTransaction(t);
    }
    case 'event': {
      if (state.txIds.length === 0) return 'none';
      const id = state.txIds[op.target % state.txIds.length] as string;
      const event: TransactionEventInput = { transactionId: id, timestamp: state.eventAt, transactionState: op.state };
      if (op.amount !== null) {
        event.updatedTransactionAttributes = { originAmountDetails: { transactionAmount: op.amount, transactionCurrency: 'USD' } };
      }
      return e.createTransactionEvent(event);
    }
    case 'create':
      return e.createRuleInstance(VALUE_MENU[op.menu] as Record<string, unknown>);
    case 'update': {
      if (state.instances.length === 0) return 'none';
      const id = state.instances[op.target % state.instances.length] as string;
      const changes: Record<string, unknown>[] = [
        { status: 'INACTIVE' },
        { status: 'ACTIVE' },
        { mode: 'SHADOW' },
        { mode: 'LIVE', status: 'ACTIVE' },
        VALUE_MENU[op.menu] as Record<string, unknown>, // may change the rule (reader <-> counter)
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

describe('properties', () => {
  const users = ['u-1', 'u-2', 'u-3'];
  let totalHits = 0;
  afterAll(() => {
    // The generated histories must make the instances hit, and the value readers read, or the
    // comparisons say little.
    expect(totalHits).toBeGreaterThan(20);
    for (const id of ['R-10', 'R-123', 'R-125', 'CUSTOM']) expect(readerHits[id] ?? 0).toBeGreaterThan(0);
  });
  test.prop(
    [
      transactionsArbitrary({ maxLength: 14, userIds: users }),
      fc.nat(14),
      fc.subarray(
        MENU.map((_, i) => i),
        { minLength: 1 },
      ),
      fc.array(fc.record({ target: fc.nat(), state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED') }), { maxLength: 5 }),
    ],
    { numRuns: 40 },
  )('an instance created at any point decides exactly as if every series had always been kept', async (transactions, split, chosen, events) => {
    const { kept, onDemand, both } = keptAndOnDemand();
    const cut = split % (transactions.length + 1);
    for (const t of transactions.slice(0, cut)) {
      const [a, b] = await both((e) => e.createTransaction(t));
      expect(b).toEqual(a);
    }
    for (const i of chosen) {
      // Every menu entry is a valid instance: a refusal would make the comparison vacuous.
      for (const e of [kept, onDemand]) await e.createRuleInstance(MENU[i] as Record<string, unknown>);
    }
    let hits = 0;
    const ids = transactions.slice(0, cut).map((t) => t.transactionId);
    for (const ev of events) {
      if (ids.length === 0) break;
      const [a, b] = await both((e) =>
        e.createTransactionEvent({
          transactionId: ids[ev.target % ids.length] as string,
          timestamp: T0 + 40 * 24 * HOUR + ev.target,
          transactionState: ev.state,
        }),
      );
      expect(b).toEqual(a);
    }
    for (const t of transactions.slice(cut)) {
      const [a, b] = await both((e) => e.createTransaction(t));
      expect(b).toEqual(a);
      if (typeof a !== 'string') hits += a.hitRules.length;
    }
    totalHits += hits;
  });

  let comparisons = 0;
  const readerHits: Record<string, number> = {};
  test.prop(
    [
      fc.oneof(denseTransactions, transactionsArbitrary({ maxLength: 16, userIds: ['u-1', 'u-2', 'u-3'] })) as fc.Arbitrary<TransactionInput[]>,
      fc.array(opArbitrary, { minLength: 1, maxLength: 40 }),
      fc.subarray(
        VALUE_MENU.map((_, i) => i),
        { maxLength: 6 },
      ),
    ],
    { numRuns: 300 },
  )('instance writes, transactions and events in any order: answers equal an always-kept engine’s', async (transactions, ops, initial) => {
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
