/**
 * A batch's chunk on a store where every read is a round trip (chunk-reads.ts), run here on the
 * memory repositories presented as shared across processes, so the path runs without a database:
 * its reads and writes are counted, and what it stores is compared with the same transactions
 * sent one by one — under rule sets that make it answer from the store, from loaded windows, and
 * from the store again after writing (graph reads, plans changed by a risk level the chunk moved).
 */
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories, presets, TxmonError, type BatchSession, type EngineOptions, type Repositories } from '../../../src/index.js';
import { ruleInstanceRequestArbitrary, transactionsArbitrary } from '../../arbitraries/index.js';
import { createChunkReads } from '../../../src/engine/services/chunk-reads.js';
import { MAX_HELD_KEYS, MAX_WRITE_RECORDS } from '../../../src/engine/services/batch-session.js';
import type { TransactionEvaluator } from '../../../src/engine/services/evaluate-transaction.js';
import { buildAlertHit, buildOutcome, buildStoredTransaction, buildTransaction } from '../../../src/testing/index.js';
import { fixedClock, sequentialIds, T0 } from '../../helpers.js';
import { RISK, RISK_LEVEL_VELOCITY, stateOf, workloadTransactions } from './batch-exactness.js';

/** Calls of each repository method, by `group.method`. */
type Calls = Map<string, number>;

/** How a memory batch session answers its try-locks: `busy(n)` for the n-th call (from 0) says a key is held elsewhere. */
interface SessionScript {
  busy(call: number): boolean;
  /** Whether the n-th write (from 0) loses a race with another writer (nothing of it written). */
  loses?(write: number): boolean;
  /** Turns of the event loop each write takes before it runs (a database slower than the evaluation). */
  lag?: number;
  /** Records of each write, in order. */
  written?: number[];
  /** Keys held at once, at most (what the session saw). */
  maxHeld: number;
  /** Sessions opened, try-locks refused, and waits for keys (after letting all go). */
  opened: number;
  refused: number;
  waited: number;
}

/** The memory repositories as a store shared across processes (a unit runs its work directly), counting calls. */
function sharedMemory(calls: Calls, script?: SessionScript): Repositories {
  const base = createMemoryRepositories();
  const counted = <G extends object>(name: string, group: G): G =>
    new Proxy(group, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const key = `${name}.${String(property)}`;
        return (...args: unknown[]) => {
          calls.set(key, (calls.get(key) ?? 0) + 1);
          if (Array.isArray(args[0])) calls.set(`${key}:ids`, (calls.get(`${key}:ids`) ?? 0) + args[0].length);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const repositories: Repositories = {
    ...base,
    transactions: counted('transactions', base.transactions),
    users: counted('users', base.users),
    aggregates: counted('aggregates', base.aggregates),
    lists: counted('lists', base.lists),
    flags: { ...base.flags, sharedAcrossProcesses: true },
    runExclusive: (_keys, work) => work(repositories),
  };
  if (script !== undefined) repositories.openBatchSession = async () => memorySession(repositories, script);
  return repositories;
}

/** A batch session on the memory repositories: keys noted (each taken once), writes run at once. */
function memorySession(repositories: Repositories, script: SessionScript): BatchSession {
  const held = new Set<string>();
  let tries = 0;
  let writes = 0;
  script.opened += 1;
  const take = (keys: readonly string[]) => {
    for (const key of keys) {
      if (held.has(key)) throw new Error(`key ${key} taken twice`);
      held.add(key);
    }
    script.maxHeld = Math.max(script.maxHeld, held.size);
  };
  return {
    lock: async (keys, shared = []) => {
      if (keys.length > 0) script.waited += 1;
      take([...keys, ...shared]);
    },
    async tryLock(keys) {
      if (keys.length === 0) return true;
      if (script.busy(tries++)) {
        script.refused += 1;
        return false;
      }
      take(keys);
      return true;
    },
    async unlock(keys) {
      for (const key of keys) if (!held.delete(key)) throw new Error(`key ${key} let go but not held`);
    },
    reads: repositories,
    write: async (work) => {
      for (let turn = 0; turn < (script.lag ?? 0); turn++) await new Promise((resolve) => setImmediate(resolve));
      if (script.loses?.(writes++) === true) throw new TxmonError('CONCURRENT_UPDATE', 'The transaction was changed concurrently');
      const counted: Repositories = {
        ...repositories,
        transactions: {
          ...repositories.transactions,
          saveOutcomes(outcomes) {
            script.written?.push(outcomes.length);
            return repositories.transactions.saveOutcomes(outcomes);
          },
        },
      };
      return work(counted);
    },
    close: async () => held.clear(),
  };
}

const script = (busy: (call: number) => boolean): SessionScript => ({ busy, maxHeld: 0, opened: 0, refused: 0, waited: 0 });

async function engineOn(repositories: Repositories, instances: readonly object[], options: EngineOptions = {}) {
  const engine = createEngine({ ...options, repositories, clock: fixedClock(), ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(7) });
  for (const request of instances) await engine.createRuleInstance(request as never);
  return engine;
}

describe('a batch chunk on a store shared across processes', () => {
  it('reads the chunk transactions, users and windows once each and writes its creations in one saveOutcomes', async () => {
    const { transactions, instances } = await workloadTransactions(250);
    const calls: Calls = new Map();
    const engine = await engineOn(sharedMemory(calls), instances);
    calls.clear();
    expect(await engine.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: 250 });
    expect(calls.get('transactions.getTransactions')).toBe(1);
    expect(calls.get('transactions.getTransaction') ?? 0).toBe(0);
    expect(calls.get('users.getUsers')).toBe(1);
    expect(calls.get('aggregates.queryAggregates')).toBe(1);
    expect(calls.get('transactions.saveOutcomes')).toBe(1);
    expect(calls.get('transactions.saveOutcome') ?? 0).toBe(0);
  });

  it.each([
    ['the 20-instance workload', (instances: readonly object[]) => instances, {}, false],
    ['the AML baseline (last entries, distinct counterparties, graph paths, dormancy)', () => presets.amlBaseline(), {}, true],
    // The loaded windows cover the longer windows a moved risk level reads.
    ['a rule set read by risk level while the chunk moves the risk levels', (instances: readonly object[]) => [...instances, RISK_LEVEL_VELOCITY], RISK, false],
  ])('stores what the same transactions store sent one by one, under %s', async (_name, ruleSet, options: EngineOptions, asksAgain) => {
    const { transactions, instances } = await workloadTransactions(600, 40);
    const rules = ruleSet(instances);
    // Both on a shared store: there, series entries always carry their values.
    const one = await engineOn(sharedMemory(new Map()), rules, options);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const calls: Calls = new Map();
    const many = await engineOn(sharedMemory(calls), rules, options);
    expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: transactions.length });
    const expected = await stateOf(one, transactions);
    expect((expected as { alerts: unknown[] }).alerts.length).toBeGreaterThan(0);
    expect(await stateOf(many, transactions)).toEqual(expected);
    expect(calls.get('transactions.saveOutcome') ?? 0).toBe(0);
    // Three chunks: one window read each, and more where the chunk had to ask the store again.
    if (asksAgain) expect(calls.get('aggregates.queryAggregates')).toBeGreaterThan(3);
    else expect(calls.get('aggregates.queryAggregates')).toBe(3);
  });

  test.prop(
    [
      fc.array(ruleInstanceRequestArbitrary(), { minLength: 1, maxLength: 6 }),
      transactionsArbitrary({ minLength: 1, maxLength: 60, userIds: ['u-1', 'u-2', 'u-3', 'u-4'] }),
      fc.boolean(),
    ],
    { numRuns: 30 },
  )('any rule set, any transactions: one batch stores what they store sent one by one', async (rules, transactions, withRisk) => {
    // Replays and conflicting payloads of one id are records like any other.
    const options: EngineOptions = withRisk ? RISK : {};
    // A batch runs its records in timestamp order (ties in batch order): the single calls too.
    const ordered = [...transactions].sort((a, b) => a.timestamp - b.timestamp);
    const one = await engineOn(sharedMemory(new Map()), rules, options);
    for (const t of ordered) await one.createTransaction(structuredClone(t)).catch(() => undefined);
    const many = await engineOn(sharedMemory(new Map()), rules, options);
    await many.createTransactionBatch({ data: structuredClone(ordered) });
    expect(await stateOf(many, ordered)).toEqual(await stateOf(one, ordered));
  });

  it.each([
    ['never held elsewhere', () => false, 0],
    ['held elsewhere at every third chunk', (call: number) => call % 3 === 2, 1],
  ])(
    'in a batch session (keys %s) stores what the same transactions store sent one by one, under the AML baseline and moving risk levels',
    async (_name, busy, refusals) => {
      // Users enough that later chunks bring users the session does not hold yet.
      const { transactions, instances } = await workloadTransactions(1_200, 600);
      const rules = [...instances, ...presets.amlBaseline(), RISK_LEVEL_VELOCITY];
      const one = await engineOn(sharedMemory(new Map()), rules, RISK);
      for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
      const session = script(busy);
      const calls: Calls = new Map();
      const many = await engineOn(sharedMemory(calls, session), rules, RISK);
      expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: transactions.length });
      const usersRead = calls.get('users.getUsers:ids');
      expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
      expect(session.opened).toBe(1);
      expect(session.refused > 0).toBe(refusals > 0);
      // Each user read once for the batch, not once per chunk, unless a refusal made the batch forget them.
      const users = new Set(transactions.flatMap((t) => [t.originUserId, t.destinationUserId]).filter((id) => id !== undefined));
      if (refusals === 0) expect(usersRead).toBe(users.size);
    },
  );

  it('a batch in a session never holds more than MAX_HELD_KEYS keys: past them it lets all go, waits, reads again, and stays exact', async () => {
    // 10,000 transactions of 5,000 users: at its peak, 2,176 users seen have a transaction in a later chunk.
    const { transactions, instances } = await workloadTransactions(10_000, 5_000);
    const one = await engineOn(sharedMemory(new Map()), instances);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const session = script(() => false);
    const many = await engineOn(sharedMemory(new Map(), session), instances);
    expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: transactions.length });
    expect(session.waited).toBeGreaterThan(0);
    expect(session.maxHeld).toBeLessThanOrEqual(MAX_HELD_KEYS + 1);
    expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
  }, 60_000);

  it('a batch session whose write loses a race runs the batch again as units: what it wrote answers as replays', async () => {
    const { transactions, instances } = await workloadTransactions(800, 600);
    const one = await engineOn(sharedMemory(new Map()), instances);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const session = script(() => false);
    session.loses = (write) => write === 1;
    const calls: Calls = new Map();
    const many = await engineOn(sharedMemory(calls, session), instances);
    expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ status: 'SUCCESS', successful: transactions.length });
    expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
    // The first chunk's write, then the three chunks not written, as units (the first one's records answer as replays).
    expect(calls.get('transactions.saveOutcomes')).toBe(1 + 3);
  });

  it.each([
    // The 20-instance workload: no graph read waits for the writes in the middle of a chunk.
    ['all written', undefined, false],
    ['the second write losing a race', (write: number) => write === 1, false],
    // Graph reads over series the batch changed wait for its writes, also after one failed.
    ['the second write losing a race under the AML baseline', (write: number) => write === 1, true],
  ])('a batch session whose writes lag behind its evaluation writes the chunks that wait together, in order, exactly (%s)', async (_name, loses, aml) => {
    const { transactions, instances } = await workloadTransactions(2_000, 600);
    const rules = aml ? [...instances, ...presets.amlBaseline()] : instances;
    const one = await engineOn(sharedMemory(new Map()), rules);
    for (const t of transactions) await one.createTransaction(structuredClone(t) as never);
    const session: SessionScript = { ...script(() => false), lag: 40, written: [], ...(loses === undefined ? {} : { loses }) };
    const many = await engineOn(sharedMemory(new Map(), session), rules);
    expect(await many.createTransactionBatch({ data: structuredClone(transactions) })).toMatchObject({ successful: transactions.length });
    expect(await stateOf(many, transactions)).toEqual(await stateOf(one, transactions));
    const written = session.written as number[];
    if (loses === undefined && !aml) {
      // Eight chunks of 250 in fewer writes, none above the cap, every record once.
      expect(written.length).toBeLessThan(8);
      expect(Math.max(...written)).toBeGreaterThan(250);
      expect(Math.max(...written)).toBeLessThanOrEqual(MAX_WRITE_RECORDS);
      expect(written.reduce((a, b) => a + b, 0)).toBe(transactions.length);
    }
  });

  test.prop(
    [
      fc.array(ruleInstanceRequestArbitrary(), { minLength: 1, maxLength: 6 }),
      transactionsArbitrary({ minLength: 1, maxLength: 60, userIds: ['u-1', 'u-2', 'u-3', 'u-4'] }),
      fc.boolean(),
      fc.func(fc.boolean()),
    ],
    { numRuns: 30 },
  )(
    'any rule set, any transactions, any refused keys: a batch in a session stores what they store sent one by one',
    async (rules, transactions, withRisk, busy) => {
      const options: EngineOptions = withRisk ? RISK : {};
      const ordered = [...transactions].sort((a, b) => a.timestamp - b.timestamp);
      const one = await engineOn(sharedMemory(new Map()), rules, options);
      for (const t of ordered) await one.createTransaction(structuredClone(t)).catch(() => undefined);
      const many = await engineOn(sharedMemory(new Map(), script(busy)), rules, options);
      await many.createTransactionBatch({ data: structuredClone(ordered) });
      expect(await stateOf(many, ordered)).toEqual(await stateOf(one, ordered));
    },
  );

  it("reads each saved transaction, after the chunk's write, with its result naming the alerts its hits landed in", async () => {
    const repositories = sharedMemory(new Map());
    const records = ['t-1', 't-2'].map((id) => buildStoredTransaction(buildTransaction(id, { origin: 'alice', destination: 'bob' })));
    // An import-only chunk rehearses nothing, so no evaluator is needed.
    const chunk = await createChunkReads(
      repositories,
      records.map((r) => r.request),
      {} as TransactionEvaluator,
      true,
      { write: (outcomes) => repositories.transactions.saveOutcomes(outcomes), settle: async () => undefined },
    );
    const named = [];
    for (const [i, r] of records.entries()) {
      const hit = buildAlertHit('ri-1', 'alice', r.transaction.transactionId, { alertId: `A-${i}`, caseId: `C-${i}` });
      named.push(await chunk.repositories.transactions.saveOutcome(buildOutcome(structuredClone(r), null, { alertHits: [hit], now: T0 + i })));
    }
    // Nothing is written before the flush: no alert can be named yet.
    expect(named).toEqual([[], []]);
    await chunk.flush();
    const alert = (action: string) => ({
      alertId: 'A-0',
      caseId: 'C-0',
      ruleInstanceId: 'ri-1',
      userId: 'alice',
      direction: 'ORIGIN',
      action,
      ...(action === 'OPENED' ? { caseOpened: true } : {}),
    });
    for (const [i, action] of ['OPENED', 'APPENDED'].entries()) {
      const read = await chunk.repositories.transactions.getTransaction(`t-${i + 1}`);
      expect([read?.createResult.alerts, read?.latestResult.alerts]).toEqual([[alert(action)], [alert(action)]]);
      expect((await repositories.transactions.getTransaction(`t-${i + 1}`))?.createResult).toEqual(read?.createResult);
    }
  });
});
