/**
 * The active instances of an engine and the writes that change them (src/engine/instances/instance-set.ts):
 * prepared once per revision of the stored instances, refreshed when another engine on the same
 * repositories changed them, and written under the writer gate (series filled before the instance
 * is stored). Several tests compare an engine that keeps every series with its values
 * (`maintainSeries: 'all'`) with the default on-demand engine: their answers must be equal.
 */
import { describe, expect, it } from 'vitest';
import { createEngine, createMemoryRepositories, type EngineOptions, type Repositories } from '../../../src/internals.js';
import { HOUR, T0, fixedClock, testEngine, tx } from '../../helpers.js';
import { pairKey } from '../../../src/rules/series.js';
import { WINDOW, R30, attempt, hitIds, hitRuleIds, ruleHits, velocity, filtered, TRANSFERS, derivedName } from './fixtures.js';

type Engine = ReturnType<typeof testEngine>['engine'];
type Outcome = Parameters<Repositories['transactions']['saveOutcome']>[0];
type StoredInstance = Parameters<Repositories['ruleInstances']['putRuleInstance']>[0];

const R10 = { ruleId: 'R-10', parameters: { sendersCount: 2, timeWindow: WINDOW } };

/** Deterministic ids with a prefix, so two engines on one repository never collide. */
function prefixedIds(prefix: string) {
  let n = 0;
  return { next: (kind: string) => `${prefix}-${kind}-${++n}` };
}

function engineOn(repositories: Repositories, prefix: string, extra: Record<string, unknown> = {}): Engine {
  return createEngine({
    repositories,
    clock: fixedClock(),
    ids: prefixedIds(prefix),
    urlSigningSecret: new Uint8Array(32).fill(7),
    ...extra,
  });
}

interface Deferred<T = void> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}
function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Lets every pending microtask and a few timer turns run (no timing assertion: a liveness check). */
async function settle(turns = 20): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Memory repositories whose rule-instance puts (by `ruleNameAlias`) and outcome writes (by
 * transaction id) can be held by the test, with a signal when each is reached.
 */
function createControlledRepositories() {
  const memory = createMemoryRepositories();
  const putHolds = new Map<string, { reached: Deferred; release: Deferred }>();
  const saveHolds = new Map<string, { reached: Deferred; release: Deferred }>();
  const hold = (map: Map<string, { reached: Deferred; release: Deferred }>, key: string) => {
    const h = { reached: deferred(), release: deferred() };
    map.set(key, h);
    return h;
  };
  const repositories: Repositories = {
    ...memory,
    transactions: {
      ...memory.transactions,
      scanTransactions: () => memory.transactions.scanTransactions(),
      async saveOutcome(outcome: Outcome) {
        const h = saveHolds.get(outcome.transaction.transaction.transactionId);
        if (h) {
          h.reached.resolve();
          await h.release.promise;
        }
        return memory.transactions.saveOutcome(outcome);
      },
    },
    ruleInstances: {
      ...memory.ruleInstances,
      async putRuleInstance(stored: StoredInstance) {
        const h = putHolds.get(stored.instance.ruleNameAlias ?? '');
        if (h) {
          h.reached.resolve();
          await h.release.promise;
        }
        return memory.ruleInstances.putRuleInstance(stored);
      },
    },
  };
  return { repositories, holdPut: (alias: string) => hold(putHolds, alias), holdSave: (id: string) => hold(saveHolds, id) };
}

/** Memory repositories whose next `ruleInstances.put` rejects when `failNextPut` is set. */
function flakyRepositories() {
  const inner = createMemoryRepositories();
  const control = { failNextPut: false };
  const repositories = {
    ...inner,
    ruleInstances: {
      ...inner.ruleInstances,
      async putRuleInstance(stored: Parameters<typeof inner.ruleInstances.putRuleInstance>[0]) {
        if (control.failNextPut) {
          control.failNextPut = false;
          throw new Error('put failed (storage unavailable)');
        }
        return inner.ruleInstances.putRuleInstance(stored);
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

describe('createInstanceSet: engines sharing repositories', () => {
  it('a new engine refills kept series by replacement: no duplicate entries, same decisions as the old engine', async () => {
    const repositories = createMemoryRepositories();
    const first = engineOn(repositories, 'a', { maintainSeries: ['user-pair'] });
    await first.createRuleInstance(velocity(2));
    await first.createRuleInstance(velocity(1, { filters: { transactionTypesHistorical: ['TRANSFER'] } }));
    const t1 = tx({ timestamp: T0 - 3 * HOUR });
    await first.createTransaction(t1);
    await first.createTransaction(tx({ timestamp: T0 - 2 * HOUR, type: 'DEPOSIT' }));
    const second = engineOn(repositories, 'b', { maintainSeries: ['user-pair'] });
    // An event first: the refill happens before the removal of t1's stored contribution.
    await second.createTransactionEvent({ transactionId: t1.transactionId, timestamp: T0 - HOUR, transactionState: 'SUCCESSFUL' });
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(2);
    expect(await repositories.aggregates.listEntries('user-pair', pairKey('alice', 'bob'))).toHaveLength(2);
    const r = await second.createTransaction(tx({ timestamp: T0 }));
    expect(new Set(hitRuleIds(r))).toEqual(new Set(['R-30']));
    expect(r.hitRules).toHaveLength(2);
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(3);
  });

  it('engines sharing repositories with the same maintainSeries keep the series when one deletes its last reader', async () => {
    const repositories = createMemoryRepositories();
    const a = engineOn(repositories, 'a', { maintainSeries: ['user-sending'] });
    const b = engineOn(repositories, 'b', { maintainSeries: ['user-sending'] });
    const reader = await b.createRuleInstance(velocity(5));
    await a.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    await a.createTransaction(tx({ timestamp: T0 - HOUR }));
    await b.deleteRuleInstance(reader.id);
    await a.createTransaction(tx({ timestamp: T0 - HOUR / 2 }));
    // A keeps user-sending by option: all three of its transactions should be there.
    expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(3);
  });

  describe('edge cases', () => {
    // Which series hold their values is known per engine; the entries are shared by all of them.
    it('an engine that re-creates a value reader refills the entries another engine wrote without values', async () => {
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
      // The admin node switches the reader back on: the entries written meanwhile must get their values.
      await reference.updateRuleInstance(readers[0]!.id, { status: 'ACTIVE' });
      await admin.updateRuleInstance(readers[1]!.id, { status: 'ACTIVE' });
      expect((await repositories.aggregates.listEntries('user-all', 'alice')).map((e) => e.values?.counterparty ?? null)).toEqual(['bob', 'carol']);
    });

    it('an engine that re-creates a value reader after another engine wrote entries without values evaluates with the counterparties of history', async () => {
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

    it('an instance created on engine A after engine B dropped the series it reads gets its history (A does not trust its stale view of the kept series)', async () => {
      const repositories = createMemoryRepositories();
      const a = engineOn(repositories, 'a');
      const b = engineOn(repositories, 'b');
      const first = await a.createRuleInstance(velocity(2));
      await b.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
      await b.createTransaction(tx({ timestamp: T0 - HOUR }));
      // B removes the last reader of user-sending: B drops the series from the shared repository.
      await b.deleteRuleInstance(first.id);
      // A has not evaluated since: its own view still says user-sending is kept; the write must fill it all the same.
      await a.createRuleInstance(velocity(2));
      expect(await repositories.aggregates.listEntries('user-sending', 'alice')).toHaveLength(2);
      const r = await a.createTransaction(tx({ timestamp: T0 }));
      expect(hitRuleIds(r)).toEqual(['R-30']);
    });
  });
});

describe('createInstanceSet: a failed instance write', () => {
  it('a reader whose write failed after the refill, then written again, decides as the kept engine', async () => {
    const { failNextPut, both } = flakyPair();
    await both((e) => e.createRuleInstance(R30));
    for (const c of ['bob', 'carol']) await once(tx({ timestamp: T0 - 3 * HOUR, destinationUserId: c }), (t) => both((e) => e.createTransaction(t)));
    failNextPut();
    const [fa, fb] = await both((e) => e.createRuleInstance(R123));
    expect(fb).toEqual(fa);
    await once(tx({ timestamp: T0 - 2 * HOUR, destinationUserId: 'dave' }), (t) => both((e) => e.createTransaction(t)));
    await both((e) => e.createRuleInstance(R123));
    const [a, b] = await once(
      tx({ timestamp: T0 - HOUR, destinationUserId: 'erin', destinationAmountDetails: { transactionAmount: 1, transactionCurrency: 'EUR', country: 'GB' } }),
      (t) => both((e) => e.createTransaction(t)),
    );
    expect(b).toEqual(a);
  });

  describe('edge cases', () => {
    it('a failed update that refilled only the series the new version reads leaves no other kept series without values', async () => {
      const { failNextPut, both, onDemandRepositories } = flakyPair();
      // Counting only: user-sending / user-receiving / user-all are kept without values.
      const [counter] = await both((e) => e.createRuleInstance(R30));
      const id = (counter as { id: string }).id;
      // Two counterparty countries (FR, GB) for alice's sent transactions.
      await once(tx({ timestamp: T0 - 3 * HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'FR' } }), (t) =>
        both((e) => e.createTransaction(t)),
      );
      await once(tx({ timestamp: T0 - 2 * HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'GB' } }), (t) =>
        both((e) => e.createTransaction(t)),
      );
      // The counter is turned into a value reader of user-all only; the fill refills user-all
      // with values, then the repository rejects the write.
      failNextPut();
      const [fa, fb] = await both((e) => e.updateRuleInstance(id, { ruleId: 'R-10', parameters: { sendersCount: 5, timeWindow: WINDOW } }));
      expect(fb).toEqual(fa);
      expect(typeof fb).toBe('string');
      // A reader of user-sending is created next: its series must be refilled with values.
      await both((e) => e.createRuleInstance(R123));
      const [a, b] = await once(
        tx({ timestamp: T0 - HOUR, destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'US' } }),
        (t) => both((e) => e.createTransaction(t)),
      );
      expect(hitIds(a)).toContain('R-123');
      expect(hitIds(b)).toEqual(hitIds(a));
      expect((await onDemandRepositories.aggregates.listEntries('user-sending', 'alice')).map((e) => e.values?.counterpartyCountry ?? null)).toEqual([
        'FR',
        'GB',
        'US',
      ]);
    });

    it('a failed write leaves no filled series kept that the prepared instances do not maintain', async () => {
      const { failNextPut, both } = flakyPair();
      const [reader] = await both((e) => e.createRuleInstance({ ruleId: 'R-10', parameters: { sendersCount: 5, timeWindow: WINDOW } }));
      const id = (reader as { id: string }).id;
      const R119 = { ruleId: 'R-119', parameters: { transactionsLimit: 1, timeWindow: WINDOW } };
      // The update fills user-pair (new), then the write fails: the prepared instances (R-10 only)
      // do not write user-pair, so it must not stay kept as if it were up to date.
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
});

describe('createInstanceSet: writes under the writer gate', () => {
  it('after a failed backfill nothing is stored, the gate is released, and a retry works (engine stays usable)', async () => {
    const memory = createMemoryRepositories();
    let failNextScan = true;
    const repositories: Repositories = {
      ...memory,
      transactions: {
        ...memory.transactions,
        scanTransactions() {
          if (!failNextScan) return memory.transactions.scanTransactions();
          failNextScan = false;
          // biome-ignore lint/correctness/useYield: a scan that fails before its first entry
          return (async function* () {
            throw new Error('storage unavailable');
          })();
        },
      },
    };
    const { engine } = testEngine({ repositories });
    await engine.createTransaction(tx({ timestamp: T0 - 2 * HOUR }));
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    await expect(engine.createRuleInstance(filtered(TRANSFERS))).rejects.toThrow('storage unavailable');
    expect(await engine.listRuleInstances()).toHaveLength(0);
    await engine.createRuleInstance(filtered(TRANSFERS));
    const result = await engine.createTransaction(tx({ timestamp: T0 }));
    expect(ruleHits(result, 'R-30')).toEqual(['ORIGIN']);
  });

  it('two instances started together with no transaction in flight both complete and both series are filled', async () => {
    const { engine } = testEngine();
    await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
    await Promise.all([engine.createRuleInstance(filtered(TRANSFERS)), engine.createRuleInstance(filtered({ transactionCountriesHistorical: ['DE'] }))]);
    expect(await engine.listRuleInstances()).toHaveLength(2);
  });

  describe('edge cases', () => {
    it('two rule-instance writes started together while a transaction is in flight both complete (neither waits forever for the drain)', async () => {
      const { repositories, holdSave } = createControlledRepositories();
      const { engine } = testEngine({ repositories });
      const slow = holdSave('t-slow-1');
      const t = engine.createTransaction(tx({ transactionId: 't-slow-1' }));
      await slow.reached.promise; // the transaction is in flight (inFlight = 1)
      let firstSettled = false;
      const first = engine.createRuleInstance(filtered(TRANSFERS)).finally(() => {
        firstSettled = true;
      });
      first.catch(() => undefined);
      const second = engine.createRuleInstance(filtered({}));
      slow.release.resolve();
      await t;
      await second;
      await settle();
      expect(firstSettled).toBe(true);
      expect(await engine.listRuleInstances()).toHaveLength(2);
    });

    it('a transaction queued behind a writer does not run while the next queued writer fills its derived series (the filled series would miss it)', async () => {
      const { repositories, holdPut, holdSave } = createControlledRepositories();
      const { engine } = testEngine({ repositories });
      const firstPut = holdPut('first');
      const first = engine.createRuleInstance(filtered({}, { ruleNameAlias: 'first' }));
      await firstPut.reached.promise; // writer 1 holds the gate
      const secondPut = holdPut('second');
      const second = engine.createRuleInstance(filtered(TRANSFERS, { ruleNameAlias: 'second' })); // queued writer 2
      const save = holdSave('t-race');
      const t = engine.createTransaction(tx({ transactionId: 't-race', timestamp: T0 })); // queued transaction
      firstPut.release.resolve();
      await first;
      await secondPut.reached.promise; // writer 2 now holds the gate
      await settle(); // a correct gate keeps the transaction waiting here
      secondPut.release.resolve(); // writer 2 stores its instance and fills `user-sending~…`
      await second;
      save.release.resolve();
      await t;
      const entries = await repositories.aggregates.listEntries(derivedName('user-sending', TRANSFERS), 'alice');
      expect(entries.map((e) => e.id)).toEqual(['t-race']);
    });

    it('a rule-instance write whose backfill throws is not half-applied (rejected ⇒ no instance stored)', async () => {
      const memory = createMemoryRepositories();
      let failNextScan = true;
      const repositories: Repositories = {
        ...memory,
        transactions: {
          ...memory.transactions,
          scanTransactions() {
            if (!failNextScan) return memory.transactions.scanTransactions();
            failNextScan = false;
            // biome-ignore lint/correctness/useYield: a scan that fails before its first entry
            return (async function* () {
              throw new Error('storage unavailable');
            })();
          },
        },
      };
      const { engine } = testEngine({ repositories });
      await engine.createTransaction(tx({ timestamp: T0 - HOUR }));
      const outcome = await engine.createRuleInstance(filtered(TRANSFERS)).then(
        () => 'created',
        () => 'rejected',
      );
      const stored = await engine.listRuleInstances();
      // Either the call succeeds, or it fails and leaves nothing behind (a retry would duplicate it).
      expect({ outcome, stored: stored.length }).toEqual(outcome === 'created' ? { outcome, stored: 1 } : { outcome, stored: 0 });
    });
  });
});
