import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryRepositories } from '../../src/index.js';
import { transactionsArbitrary } from '../arbitraries/index.js';
import { HOUR, T0, testEngine, tx } from '../helpers.js';

/** Instances over every built-in series: user sending/receiving/all, pairs, payment identifiers, IPs. */
const MENU: Record<string, unknown>[] = [
  { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'all', checkReceiver: 'all' } },
  { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 2000 }, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'all', checkReceiver: 'all' } },
  { ruleId: 'R-119' },
  { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } },
  { ruleId: 'R-52', parameters: { uniqueUsersCountThreshold: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } },
  { ruleId: 'R-94' },
  { ruleId: 'R-8', parameters: { lowTransactionValues: { USD: { min: 0, max: 5000 } }, lowTransactionCount: 2 } },
  { ruleId: 'R-30', parameters: { transactionsLimit: 0, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } }, filters: { transactionTypesHistorical: ['TRANSFER', 'DEPOSIT'] } },
  // Instances whose parameters read some of their rule's series only (D-145).
  { ruleId: 'R-30', parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'none', checkReceiver: 'all' } },
  { ruleId: 'R-69', parameters: { transactionVolumeThreshold: { USD: 1500 }, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' } },
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

describe('series kept on demand (D-125)', () => {
  it('keeps no series while no instance reads one, and fills a series from history when one starts reading it', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(0);
    const instance = await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 1 } });
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(1);
    expect(await repositories.aggregates.entries('user-pair', 'alice\u0000bob')).toHaveLength(0);
    await engine.deleteRuleInstance(instance.id);
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(0);
  });

  it("maintainSeries keeps series no instance reads; an unknown name is a configuration error", async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories, maintainSeries: ['user-pair'] });
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(await repositories.aggregates.entries('user-pair', 'alice\u0000bob')).toHaveLength(1);
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(0);
    expect(() => testEngine({ maintainSeries: ['user-nope' as never] })).toThrow(/maintainSeries/);
  });
});

describe('entry values kept on demand (D-139)', () => {
  const R10 = { ruleId: 'R-10', parameters: { sendersCount: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true } } };

  it('keeps user-series entries without values while only counting rules read them, and refills them when a value reader starts', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance({ ruleId: 'R-30', parameters: { transactionsLimit: 5 } });
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    const [bare] = await repositories.aggregates.entries('user-sending', 'alice');
    expect(bare).toBeDefined();
    expect(bare?.values).toBeUndefined();
    const reader = await engine.createRuleInstance(R10);
    const [filled] = await repositories.aggregates.entries('user-sending', 'alice');
    expect(filled?.values).toMatchObject({ counterparty: 'bob', type: 'TRANSFER' });
    // The value reader leaves: new entries are kept without values again; when it comes back the
    // series are refilled, so the entry written in between has its values too.
    await engine.deleteRuleInstance(reader.id);
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect((await repositories.aggregates.entries('user-sending', 'alice')).map((e) => e.values === undefined)).toEqual([false, true]);
    await engine.createRuleInstance(R10);
    expect((await repositories.aggregates.entries('user-sending', 'alice')).map((e) => e.values?.counterparty)).toEqual(['bob', 'bob']);
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
        e.createTransactionEvent({ transactionId: ids[ev.target % ids.length] as string, timestamp: T0 + 40 * 24 * HOUR + ev.target, transactionState: ev.state }),
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
});

describe('series chosen by parameters (D-145)', () => {
  const R30 = (checkSender: string, checkReceiver: string) => ({
    ruleId: 'R-30',
    parameters: { transactionsLimit: 1, timeWindow: { units: 30, granularity: 'day', rollingBasis: true }, checkSender, checkReceiver },
  });

  it('keeps only the series the parameters read', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    await engine.createRuleInstance(R30('sending', 'receiving'));
    await engine.createTransaction(tx({ timestamp: T0 }));
    expect(await repositories.aggregates.entries('user-sending', 'alice')).toHaveLength(1);
    expect(await repositories.aggregates.entries('user-receiving', 'bob')).toHaveLength(1);
    expect(await repositories.aggregates.entries('user-all', 'alice')).toHaveLength(0);
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

describe('properties', () => {
  const users = ['u-1', 'u-2', 'u-3'];
  let totalHits = 0;
  afterAll(() => {
    // The generated histories must make the instances hit, or the comparison says little.
    expect(totalHits).toBeGreaterThan(20);
  });
  test.prop(
    [
      transactionsArbitrary({ maxLength: 14, userIds: users }),
      fc.nat(14),
      fc.subarray(MENU.map((_, i) => i), { minLength: 1 }),
      fc.array(fc.record({ target: fc.nat(), state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED') }), { maxLength: 5 }),
    ],
    { numRuns: 40 },
  )(
    'an instance created at any point decides exactly as if every series had always been kept',
    async (transactions, split, chosen, events) => {
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
          e.createTransactionEvent({ transactionId: ids[ev.target % ids.length] as string, timestamp: T0 + 40 * 24 * HOUR + ev.target, transactionState: ev.state }),
        );
        expect(b).toEqual(a);
      }
      for (const t of transactions.slice(cut)) {
        const [a, b] = await both((e) => e.createTransaction(t));
        expect(b).toEqual(a);
        if (typeof a !== 'string') hits += a.hitRules.length;
      }
      totalHits += hits;
    },
  );
});
