import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { compileHistoricalFilters, createFixedRateProvider, createMemoryRepositories, type RuleFilters, type Transaction } from '../../../src/internals.js';
import { contributionsOf, createDerivedSeries } from '../../../src/rules/series.js';
import { DAY, HOUR, T0, errorOf, testEngine, tx } from '../../helpers.js';

const BASE = tx({ timestamp: T0 }) as unknown as Transaction;

function variant(overrides: Record<string, unknown>): Transaction {
  return { ...BASE, ...overrides } as Transaction;
}

describe('compileHistoricalFilters', () => {
  it('returns null when no historical filter is set (other filters do not count)', () => {
    expect(compileHistoricalFilters({ transactionTypes: ['TRANSFER'], paymentMethodsHistorical: [], transactionAmountRangeHistorical: {} })).toBeNull();
  });

  const card = { method: 'CARD', cardFingerprint: 'fp' };
  const iban = { method: 'IBAN', IBAN: 'DE89370400440532013000', BIC: 'COBADEFFXXX' };
  const rows: { name: string; filters: RuleFilters; transaction: Transaction; expected: boolean }[] = [
    { name: 'type listed', filters: { transactionTypesHistorical: ['TRANSFER'] }, transaction: BASE, expected: true },
    { name: 'type not listed', filters: { transactionTypesHistorical: ['DEPOSIT'] }, transaction: BASE, expected: false },
    { name: 'no state counts as CREATED', filters: { transactionStatesHistorical: ['CREATED'] }, transaction: BASE, expected: true },
    {
      name: 'state not listed',
      filters: { transactionStatesHistorical: ['SUCCESSFUL'] },
      transaction: variant({ transactionState: 'DECLINED' }),
      expected: false,
    },
    {
      name: 'origin payment method listed',
      filters: { paymentMethodsHistorical: ['CARD'] },
      transaction: variant({ originPaymentDetails: card }),
      expected: true,
    },
    {
      name: 'destination payment method listed',
      filters: { paymentMethodsHistorical: ['IBAN'] },
      transaction: variant({ originPaymentDetails: card, destinationPaymentDetails: iban }),
      expected: true,
    },
    { name: 'no payment details fails a method filter', filters: { paymentMethodsHistorical: ['CARD'] }, transaction: BASE, expected: false },
    { name: 'origin country listed', filters: { transactionCountriesHistorical: ['DE'] }, transaction: BASE, expected: true },
    { name: 'destination country listed', filters: { transactionCountriesHistorical: ['FR'] }, transaction: BASE, expected: true },
    { name: 'neither country listed', filters: { transactionCountriesHistorical: ['GB'] }, transaction: BASE, expected: false },
    { name: 'amount exactly at min', filters: { transactionAmountRangeHistorical: { EUR: { min: 100 } } }, transaction: BASE, expected: true },
    { name: 'amount one cent under min', filters: { transactionAmountRangeHistorical: { EUR: { min: 100.01 } } }, transaction: BASE, expected: false },
    { name: 'amount exactly at max', filters: { transactionAmountRangeHistorical: { EUR: { max: 100 } } }, transaction: BASE, expected: true },
    { name: 'amount one cent over max', filters: { transactionAmountRangeHistorical: { EUR: { max: 99.99 } } }, transaction: BASE, expected: false },
    { name: 'currency without a range fails', filters: { transactionAmountRangeHistorical: { USD: { min: 0 } } }, transaction: BASE, expected: false },
    {
      name: 'time exactly at start is in',
      filters: { transactionTimeRangeHistorical24hr: { startTime: { utcHours: 12, utcMinutes: 0 }, endTime: { utcHours: 13, utcMinutes: 0 } } },
      transaction: BASE,
      expected: true,
    },
    {
      name: 'time exactly at end is out',
      filters: { transactionTimeRangeHistorical24hr: { startTime: { utcHours: 11, utcMinutes: 0 }, endTime: { utcHours: 12, utcMinutes: 0 } } },
      transaction: BASE,
      expected: false,
    },
    {
      name: 'all filters must pass (one fails)',
      filters: { transactionTypesHistorical: ['TRANSFER'], transactionCountriesHistorical: ['GB'] },
      transaction: BASE,
      expected: false,
    },
  ];
  it.each(rows)('$name', ({ filters, transaction, expected }) => {
    expect(compileHistoricalFilters(filters)?.accepts(transaction)).toBe(expected);
  });

  it('gives equal ids to equal filters whatever the key order, and different ids to different ones', () => {
    const a = compileHistoricalFilters({ transactionTypesHistorical: ['TRANSFER'], transactionCountriesHistorical: ['DE'] });
    const b = compileHistoricalFilters({ transactionCountriesHistorical: ['DE'], transactionTypesHistorical: ['TRANSFER'], transactionTypes: ['X'] });
    const c = compileHistoricalFilters({ transactionTypesHistorical: ['TRANSFER'], transactionCountriesHistorical: ['FR'] });
    expect(a?.id).toBe(b?.id);
    expect(a?.id).not.toBe(c?.id);
  });
});

/** An R-30 instance counting the sender's transactions in a rolling day, limit 1 (a third one hits). */
function velocity(filters: Record<string, unknown>, transactionsLimit = 1) {
  return {
    ruleId: 'R-30',
    parameters: { transactionsLimit, timeWindow: { units: 1, granularity: 'day', rollingBasis: true }, checkSender: 'sending', checkReceiver: 'none' },
    filters,
  };
}

async function hitOf(engine: ReturnType<typeof testEngine>['engine'], overrides: Record<string, unknown>): Promise<boolean> {
  const result = await engine.createTransaction(tx(overrides));
  return result.hitRules.some((r) => r.ruleId === 'R-30');
}

describe('historical filters through the engine (R-30, limit 1)', () => {
  it('counts only past transactions that pass: two DEPOSITs before a TRANSFER do not count', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }));
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - HOUR }));
    expect(await hitOf(engine, { type: 'TRANSFER', timestamp: T0 })).toBe(false);
    // Without the filter the same history hits.
    const plain = testEngine().engine;
    await plain.createRuleInstance(velocity({}));
    await plain.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - 2 * HOUR }));
    await plain.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - HOUR }));
    expect(await hitOf(plain, { type: 'TRANSFER', timestamp: T0 })).toBe(true);
  });

  it('hits when the passing past transactions are enough (2 TRANSFERs + current = 3 > 1)', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }));
    await engine.createTransaction(tx({ type: 'TRANSFER', timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - HOUR }));
    expect(await hitOf(engine, { type: 'TRANSFER', timestamp: T0 })).toBe(true);
  });

  it('a current transaction that fails the historical filters does not count itself', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }));
    await engine.createTransaction(tx({ type: 'TRANSFER', timestamp: T0 - 2 * HOUR }));
    // 1 passing past + (current DEPOSIT not counted) = 1, not > 1.
    expect(await hitOf(engine, { type: 'DEPOSIT', timestamp: T0 })).toBe(false);
  });

  it('sees history stored before the instance existed (the derived series is filled from history)', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx({ type: 'TRANSFER', timestamp: T0 - 3 * HOUR }));
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ type: 'TRANSFER', timestamp: T0 - HOUR }));
    await engine.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }));
    expect(await hitOf(engine, { type: 'TRANSFER', timestamp: T0 })).toBe(true);
  });

  it('respects the window edges on the filtered series (limit 2: exactly 1 day back is in, 1 ms more is out)', async () => {
    const inside = testEngine().engine;
    await inside.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }, 2));
    await inside.createTransaction(tx({ timestamp: T0 - DAY }));
    await inside.createTransaction(tx({ timestamp: T0 - 1 }));
    expect(await hitOf(inside, { timestamp: T0 })).toBe(true);
    const outside = testEngine().engine;
    await outside.createRuleInstance(velocity({ transactionTypesHistorical: ['TRANSFER'] }, 2));
    await outside.createTransaction(tx({ timestamp: T0 - DAY - 1 }));
    await outside.createTransaction(tx({ timestamp: T0 - 1 }));
    expect(await hitOf(outside, { timestamp: T0 })).toBe(false);
  });

  it('events move a past transaction in and out of a state filter', async () => {
    const { engine } = testEngine();
    await engine.createRuleInstance(velocity({ transactionStatesHistorical: ['SUCCESSFUL'] }));
    const a = tx({ timestamp: T0 - 2 * HOUR, transactionState: 'SUCCESSFUL' });
    const b = tx({ timestamp: T0 - HOUR, transactionState: 'SUCCESSFUL' });
    await engine.createTransaction(a);
    await engine.createTransaction(b);
    expect(await hitOf(engine, { timestamp: T0, transactionState: 'SUCCESSFUL' })).toBe(true);
    // A refund-like reversal: b is declined after the fact and stops counting.
    await engine.createTransactionEvent({ transactionId: b.transactionId, timestamp: T0 + 1, transactionState: 'REFUNDED' });
    expect(await hitOf(engine, { timestamp: T0 + 2, transactionState: 'SUCCESSFUL' })).toBe(true);
    const { engine: second } = testEngine();
    await second.createRuleInstance(velocity({ transactionStatesHistorical: ['SUCCESSFUL'] }));
    const c = tx({ timestamp: T0 - HOUR, transactionState: 'SUCCESSFUL' });
    await second.createTransaction(c);
    await second.createTransactionEvent({ transactionId: c.transactionId, timestamp: T0 - HOUR + 1, transactionState: 'REFUNDED' });
    expect(await hitOf(second, { timestamp: T0, transactionState: 'SUCCESSFUL' })).toBe(false);
  });

  it('drops the derived series when the instance is deleted, and rebuilds it when one is created again', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const filters = { transactionTypesHistorical: ['TRANSFER'] };
    const id = compileHistoricalFilters(filters)?.id as string;
    const instance = await engine.createRuleInstance(velocity(filters));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    expect(await repositories.aggregates.listEntries(`user-sending~${id}`, 'alice')).toHaveLength(1);
    await engine.deleteRuleInstance(instance.id);
    expect(await repositories.aggregates.listEntries(`user-sending~${id}`, 'alice')).toHaveLength(0);
    await engine.createTransaction(tx({ timestamp: T0 - HOUR + 1 }));
    await engine.createRuleInstance(velocity(filters));
    expect(await repositories.aggregates.listEntries(`user-sending~${id}`, 'alice')).toHaveLength(2);
  });

  it('an update that changes the filters switches to the new series; deactivation drops it', async () => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const a = { transactionTypesHistorical: ['TRANSFER'] };
    const b = { transactionTypesHistorical: ['DEPOSIT'] };
    const idA = compileHistoricalFilters(a)?.id as string;
    const idB = compileHistoricalFilters(b)?.id as string;
    await engine.createTransaction(tx({ type: 'DEPOSIT', timestamp: T0 - HOUR }));
    const instance = await engine.createRuleInstance(velocity(a));
    expect(await repositories.aggregates.listEntries(`user-sending~${idA}`, 'alice')).toHaveLength(0);
    await engine.updateRuleInstance(instance.id, { filters: b });
    expect(await repositories.aggregates.listEntries(`user-sending~${idA}`, 'alice')).toHaveLength(0);
    expect(await repositories.aggregates.listEntries(`user-sending~${idB}`, 'alice')).toHaveLength(1);
    await engine.updateRuleInstance(instance.id, { status: 'INACTIVE' });
    expect(await repositories.aggregates.listEntries(`user-sending~${idB}`, 'alice')).toHaveLength(0);
  });

  it('waits for in-flight transactions before filling a new series (none is lost, even with slow writes)', async () => {
    const memory = createMemoryRepositories();
    // Slow outcome writes: a transaction evaluated before the instance existed is still saving
    // while the instance is created.
    const repositories = {
      ...memory,
      transactions: {
        ...memory.transactions,
        scanTransactions: () => memory.transactions.scanTransactions(),
        async saveOutcome(outcome: Parameters<typeof memory.transactions.saveOutcome>[0]) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          return memory.transactions.saveOutcome(outcome);
        },
      },
      users: {
        ...memory.users,
        async getUsers(userIds: readonly string[]) {
          await new Promise((resolve) => setTimeout(resolve, 2));
          return memory.users.getUsers(userIds);
        },
      },
    };
    const { engine } = testEngine({ repositories });
    const filters = { transactionTypesHistorical: ['TRANSFER'] };
    const id = compileHistoricalFilters(filters)?.id as string;
    const sends = Array.from({ length: 20 }, (_, i) => engine.createTransaction(tx({ timestamp: T0 + i, originUserId: `u-${i % 3}` })));
    // Let the first transactions read the (empty) instance list and start their slow reads.
    await new Promise((resolve) => setTimeout(resolve, 1));
    const created = engine.createRuleInstance(velocity(filters));
    const more = Array.from({ length: 20 }, (_, i) => engine.createTransaction(tx({ timestamp: T0 + 100 + i, originUserId: `u-${i % 3}` })));
    await Promise.all([...sends, created, ...more]);
    let total = 0;
    for (const user of ['u-0', 'u-1', 'u-2']) total += (await repositories.aggregates.listEntries(`user-sending~${id}`, user)).length;
    expect(total).toBe(40);
  });

  const refused: { name: string; request: Record<string, unknown>; path: string }[] = [
    {
      name: 'a rule that reads no history (R-2)',
      request: { ruleId: 'R-2', filters: { transactionTypesHistorical: ['TRANSFER'] } },
      path: '/filters/transactionTypesHistorical',
    },
    {
      name: 'custom logic',
      request: { logic: { '==': [1, 1] }, filters: { transactionCountriesHistorical: ['DE'] } },
      path: '/filters/transactionCountriesHistorical',
    },
  ];
  it.each(refused)('refuses historical filters on $name (400 INVALID_FILTERS naming the path)', async ({ request, path }) => {
    const { engine } = testEngine();
    const error = await errorOf(() => engine.createRuleInstance(request));
    expect(error.code).toBe('INVALID_FILTERS');
    expect(error.status).toBe(400);
    expect(error.details[0]?.path).toBe(path);
    expect(await engine.listRuleInstances()).toHaveLength(0);
  });
});

describe('properties', () => {
  const typeArb = fc.constantFrom('TRANSFER', 'DEPOSIT', 'WITHDRAWAL');
  const stateArb = fc.constantFrom('CREATED', 'SUCCESSFUL', 'DECLINED');
  const opArb = fc.oneof(
    fc.record({
      kind: fc.constant('tx' as const),
      type: typeArb,
      state: stateArb,
      user: fc.integer({ min: 0, max: 2 }),
      dt: fc.integer({ min: 0, max: 10 * HOUR }),
    }),
    fc.record({ kind: fc.constant('event' as const), target: fc.nat(), state: fc.constantFrom('SUCCESSFUL', 'DECLINED', 'REFUNDED') }),
    fc.record({ kind: fc.constant('instance' as const) }),
  );

  test.prop(
    [
      fc.array(opArb, { maxLength: 25 }),
      fc.subarray(['TRANSFER', 'DEPOSIT', 'WITHDRAWAL'], { minLength: 1 }),
      fc.subarray(['CREATED', 'SUCCESSFUL', 'DECLINED', 'REFUNDED'], { minLength: 1 }),
    ],
    {
      numRuns: 60,
    },
  )('the derived series equals the filter applied to the final transactions, whenever the instance is created', async (ops, types, states) => {
    const repositories = createMemoryRepositories();
    const { engine } = testEngine({ repositories });
    const filters = { transactionTypesHistorical: types, transactionStatesHistorical: states } as RuleFilters;
    const compiled = compileHistoricalFilters(filters);
    if (compiled === null) throw new Error('filters expected');
    const ids: string[] = [];
    let created = false;
    let t = T0;
    for (const op of ops) {
      if (op.kind === 'instance') {
        if (!created) await engine.createRuleInstance(velocity(filters));
        created = true;
      } else if (op.kind === 'tx') {
        t += op.dt;
        const payload = tx({ type: op.type, transactionState: op.state, timestamp: t, originUserId: `u-${op.user}` });
        ids.push(payload.transactionId as string);
        await engine.createTransaction(payload);
      } else if (ids.length > 0) {
        t += 1;
        try {
          await engine.createTransactionEvent({ transactionId: ids[op.target % ids.length] as string, timestamp: t, transactionState: op.state });
        } catch {
          // A transition the lifecycle table refuses changes nothing.
        }
      }
    }
    if (!created) await engine.createRuleInstance(velocity(filters));
    const series = createDerivedSeries('user-sending', compiled.id, compiled.accepts);
    const money = { rates: createFixedRateProvider(), baseCurrency: 'USD' };
    for (const user of ['u-0', 'u-1', 'u-2']) {
      const expected = [];
      for (const id of ids) {
        const stored = await repositories.transactions.getTransaction(id);
        if (stored?.transaction.originUserId !== user) continue;
        // R-30 reads no entry values (readsEntryValues: false), so the engine keeps its series without them.
        for (const { values: _values, ...entry } of series.accepts(stored.transaction) ? contributionsOf(stored.transaction, new Set(), money, [series]) : [])
          expected.push(entry);
      }
      expected.sort((a, b) => a.timestamp - b.timestamp || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      expect(await repositories.aggregates.listEntries(series.name, user)).toEqual(expected);
    }
  });
});
