/**
 * A batch chunk evaluated on a store where every read and write is a round trip (a database): the
 * chunk's reads taken in a few round trips before its first record, each record's outcome applied
 * to what the later records read, and the outcomes written together.
 *
 * Exact, not approximate: every answer equals what the store would give if the outcomes before it
 * had been written one by one with no other writer in between — what the locks of the chunk's
 * transactions and users guarantee. Every window a record reads is loaded whole (up to
 * `MAX_LAST_ENTRIES` entries) and answered locally, with the batch's own entries applied as its
 * records save them, written or not. What a batch read under keys it still holds stays valid
 * between its chunks ({@link BatchReads}), so a window, a user or a transaction is read once per
 * batch, not once per chunk. Another process's writes to keys no lock covers (a card's or an IP's
 * series, list items) land before or after the batch's reads of them, as they may land before or
 * after any single call. A read the loads do not cover (a plan changed by a risk level the chunk
 * moved, a graph read across keys the batch changed, a window of more entries than a load takes)
 * asks the store, after the batch's outcomes that read depends on are written.
 */
import { createAggregateStore, type AggregateQuery, type AggregateStore, type AggregateValue, type SeriesEntry } from '../../aggregation/aggregate-store.js';
import { MAX_LAST_ENTRIES } from '../../aggregation/checks.js';
import { isGraphFunction } from '../../aggregation/graph.js';
import type { StoredUser } from '../../domain/entities.js';
import type { ResultAlert, Transaction } from '../../domain/index.js';
import { applyOutcomeUsers } from '../../domain/user-update.js';
import { initialTransaction } from '../pipeline/apply-event.js';
import { outcomeNamingAlerts, type ListProbe, type Repositories, type StoredTransaction, type TransactionOutcome } from '../repositories.js';
import type { TransactionEvaluator } from './evaluate-transaction.js';

/** Values by (series, key), without joining the two into one string on every look-up. */
class PairMap<T> {
  private readonly bySeries = new Map<string, Map<string, T>>();
  get(series: string, key: string): T | undefined {
    return this.bySeries.get(series)?.get(key);
  }
  set(series: string, key: string, value: T): void {
    let keys = this.bySeries.get(series);
    if (keys === undefined) {
      keys = new Map();
      this.bySeries.set(series, keys);
    }
    keys.set(key, value);
  }
  delete(series: string, key: string): void {
    this.bySeries.get(series)?.delete(key);
  }
  /** Whether any key of `series` has a value. */
  hasSeries(series: string): boolean {
    return (this.bySeries.get(series)?.size ?? 0) > 0;
  }
  clear(): void {
    this.bySeries.clear();
  }
}

/** The window of a (series, key) loaded: [start, end], every entry of it in the local store. */
interface LoadedRange {
  start: number;
  end: number;
}

/**
 * What a batch knows of the store between its chunks: valid while the batch holds the keys it
 * read them under (a new batch, or one that let its keys go, starts from {@link emptyBatchReads}).
 */
export interface BatchReads {
  /** Transactions read or saved, by id (`null`: none stored). */
  readonly transactions: Map<string, StoredTransaction | null>;
  /** Users read, as the batch's outcomes left them (`null`: none stored). */
  readonly users: Map<string, StoredUser | null>;
  /** Loaded windows' entries, and every entry the batch's outcomes added or removed. */
  readonly local: AggregateStore;
  /** The loaded window of each (series, key). */
  readonly loaded: PairMap<LoadedRange>;
  /** Windows a load found too full (`MAX_LAST_ENTRIES` entries): asked of the store each time. */
  readonly crowded: PairMap<true>;
  /** (series, key) pairs that outcomes not yet known written changed. */
  readonly unsettled: PairMap<true>;
  /** Counts the waits for the batch's writes: a graph read answered before the last one may leave some out. */
  settled: number;
}

export function emptyBatchReads(): BatchReads {
  return {
    transactions: new Map(),
    users: new Map(),
    local: createAggregateStore(),
    loaded: new PairMap(),
    crowded: new PairMap(),
    unsettled: new PairMap(),
    settled: 0,
  };
}

/** How a chunk's outcomes reach the store. */
export interface ChunkWriter {
  /** Writes `outcomes` in order as one atomic write (possibly queued): the alerts of each, once stored. */
  write(outcomes: readonly TransactionOutcome[]): Promise<ResultAlert[][]>;
  /** Resolves once every write asked before is stored (the store's reads see it). */
  settle(): Promise<void>;
}

/** Repositories for a chunk's records, and the write of what they saved. */
export interface ChunkReads {
  /** What the chunk's records read and save through: see the module's description. */
  readonly repositories: Repositories;
  /**
   * Writes the outcomes saved since the last flush through the chunk's writer; once stored, each
   * saved transaction reads (through `repositories`) with its result naming the alerts its hits
   * landed in — which `saveOutcome` of `repositories` cannot name (it returns none: nothing is
   * written yet). Resolves when the write is stored.
   */
  flush(): Promise<void>;
}

/** How a graph read is looked up again: the query's every field. */
function queryKey(q: AggregateQuery): string {
  return JSON.stringify([q.series, q.key, q.start, q.end, q.fn, q.field, q.excludeId, q.includeValue, q.values, q.limit, q.fanOut]);
}

const seriesKey = (series: string, key: string) => `${series}\u0000${key}`;
const probeKey = (listId: string, p: ListProbe) => JSON.stringify([listId, p.listType, p.subtype, p.value]);

/** What the rehearsal found the chunk will read. */
interface Rehearsal {
  /** Graph reads (across keys), by {@link queryKey}. */
  readonly graphs: Map<string, AggregateQuery>;
  /** The window of each (series, key) read otherwise: the union of the reads' windows. */
  readonly ranges: Map<string, { series: string; key: string } & LoadedRange>;
  /** List probes, by list. */
  readonly probes: Map<string, Map<string, ListProbe>>;
}

/** Runs each new record's reads (no decision) on repositories that note them. */
async function rehearse(
  repos: Repositories,
  records: readonly Transaction[],
  users: Map<string, StoredUser | null>,
  evaluator: TransactionEvaluator,
): Promise<Rehearsal> {
  const found: Rehearsal = { graphs: new Map(), ranges: new Map(), probes: new Map() };
  const noting: Repositories = {
    ...repos,
    users: { ...repos.users, getUsers: async (ids) => ids.map((id) => users.get(id) ?? null), getUser: async (id) => users.get(id) ?? null },
    aggregates: {
      ...repos.aggregates,
      async queryAggregates(queries) {
        for (const q of queries) {
          if (isGraphFunction(q.fn)) {
            found.graphs.set(queryKey(q), q);
            continue;
          }
          const sk = seriesKey(q.series, q.key);
          const range = found.ranges.get(sk);
          if (range === undefined) found.ranges.set(sk, { series: q.series, key: q.key, start: q.start, end: q.end });
          else {
            if (q.start < range.start) range.start = q.start;
            if (q.end > range.end) range.end = q.end;
          }
        }
        // The rehearsal decides nothing: its answers are never read.
        return new Array<AggregateValue>(queries.length).fill(null);
      },
    },
    lists: {
      ...repos.lists,
      async lookupListItems(listId, probes) {
        let byKey = found.probes.get(listId);
        if (byKey === undefined) {
          byKey = new Map();
          found.probes.set(listId, byKey);
        }
        for (const p of probes) byKey.set(probeKey(listId, p), p);
        return probes.map(() => false);
      },
    },
  };
  for (const record of records) await evaluator.rehearse(initialTransaction(record), noting);
  return found;
}

/** The parts of each rehearsed window not loaded yet, as `lastEntries` loads. */
function loadsOf(found: Rehearsal, batch: BatchReads): { sk: string; series: string; key: string; query: AggregateQuery }[] {
  const loads = [];
  for (const [sk, r] of found.ranges) {
    if (batch.crowded.get(r.series, r.key)) continue;
    const have = batch.loaded.get(r.series, r.key);
    // Closed intervals: a part starting or ending at a loaded bound reads that instant again,
    // which the local store takes as the same entries (same ids).
    const parts: [number, number][] = have === undefined ? [[r.start, r.end]] : [];
    if (have !== undefined && r.start < have.start) parts.push([r.start, have.start]);
    if (have !== undefined && r.end > have.end) parts.push([have.end, r.end]);
    for (const [start, end] of parts) {
      loads.push({
        sk,
        series: r.series,
        key: r.key,
        query: { series: r.series, key: r.key, start, end, fn: 'lastEntries' as const, limit: MAX_LAST_ENTRIES },
      });
    }
  }
  return loads;
}

/**
 * The chunk's reads: its transactions and users the batch has not read yet, then — unless
 * `importOnly` (no window is read) — a rehearsal of its records' reads and the windows and graph
 * reads they need, in one round trip, and one per list probed.
 */
export async function createChunkReads(
  repos: Repositories,
  records: readonly Transaction[],
  evaluator: TransactionEvaluator,
  importOnly: boolean,
  writer: ChunkWriter,
  batch: BatchReads = emptyBatchReads(),
): Promise<ChunkReads> {
  const { transactions, users, local, loaded } = batch;
  const ids = [...new Set(records.map((r) => r.transactionId))].filter((id) => !transactions.has(id));
  if (ids.length > 0) {
    const stored = await repos.transactions.getTransactions(ids);
    for (const [i, id] of ids.entries()) transactions.set(id, stored[i] ?? null);
  }
  const userIds = [...new Set(records.flatMap((r) => [r.originUserId ?? '', r.destinationUserId ?? '']))].filter((id) => id !== '' && !users.has(id));
  if (userIds.length > 0) {
    const read = await repos.users.getUsers(userIds);
    for (const [i, id] of userIds.entries()) users.set(id, read[i] ?? null);
  }
  const graphs = new Map<string, AggregateValue>();
  const listed = new Map<string, boolean>();
  if (!importOnly) {
    const seen = new Set<string>();
    const fresh = records.filter((r) => !seen.has(r.transactionId) && seen.add(r.transactionId) && transactions.get(r.transactionId) === null);
    const found = await rehearse(repos, fresh, users, evaluator);
    const graphQueries = [...found.graphs.values()];
    const loads = loadsOf(found, batch);
    const answers = graphQueries.length + loads.length > 0 ? await repos.aggregates.queryAggregates([...graphQueries, ...loads.map((l) => l.query)]) : [];
    for (const [i, q] of graphQueries.entries()) graphs.set(queryKey(q), answers[i] ?? null);
    const full = new Set<string>();
    loads.forEach((l, i) => {
      const entries = answers[graphQueries.length + i] as readonly SeriesEntry[];
      // A full answer may have left older entries of the window out: that window is asked of the store.
      if (entries.length >= MAX_LAST_ENTRIES) full.add(l.sk);
      else
        local.apply(
          [],
          // Object literals, not a spread: many times cheaper per entry, and windows are loaded by the thousand.
          entries.map((e): SeriesEntry => {
            const { series, key } = l;
            return e.values === undefined
              ? { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount }
              : { series, key, id: e.id, timestamp: e.timestamp, amount: e.amount, values: e.values };
          }),
        );
    });
    for (const [sk, r] of found.ranges) {
      if (batch.crowded.get(r.series, r.key)) continue;
      if (full.has(sk)) {
        batch.crowded.set(r.series, r.key, true);
        loaded.delete(r.series, r.key);
        continue;
      }
      const have = loaded.get(r.series, r.key);
      loaded.set(r.series, r.key, { start: Math.min(r.start, have?.start ?? r.start), end: Math.max(r.end, have?.end ?? r.end) });
    }
    for (const [listId, byKey] of found.probes) {
      const probes = [...byKey.entries()];
      const hits = await repos.lists.lookupListItems(
        listId,
        probes.map(([, p]) => p),
      );
      for (let i = 0; i < probes.length; i++) listed.set((probes[i] as [string, ListProbe])[0], hits[i] === true);
    }
  }
  return chunkRepositories(repos, batch, { graphs, listed, settled: batch.settled }, writer);
}

/** The repositories a chunk's records run on (see the module's description). */
function chunkRepositories(
  repos: Repositories,
  batch: BatchReads,
  chunk: { graphs: Map<string, AggregateValue>; listed: Map<string, boolean>; settled: number },
  writer: ChunkWriter,
): ChunkReads {
  const { transactions, users, local, loaded, unsettled } = batch;
  const { graphs, listed } = chunk;
  let pending: TransactionOutcome[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const outcomes = pending;
    pending = [];
    const alerts = await writer.write(outcomes);
    outcomes.forEach((outcome, i) => {
      const named = alerts[i] ?? [];
      const t = outcome.transaction;
      if (named.length > 0 && transactions.get(t.transaction.transactionId) === t)
        transactions.set(t.transaction.transactionId, outcomeNamingAlerts(outcome, named).transaction);
    });
  };
  /** Writes everything saved so far and waits until it is stored: the store's reads see the batch then. */
  const settle = async () => {
    const written = flush();
    await writer.settle();
    await written;
    unsettled.clear();
    batch.settled += 1;
  };
  const answer = (q: AggregateQuery): AggregateValue | undefined => {
    // A graph answer read while the batch had outcomes of its series unwritten, or before the batch
    // last waited for its writes (and forgot which series those were), may leave some out.
    if (isGraphFunction(q.fn)) return unsettled.hasSeries(q.series) || batch.settled !== chunk.settled ? undefined : graphs.get(queryKey(q));
    const range = loaded.get(q.series, q.key);
    return range !== undefined && range.start <= q.start && q.end <= range.end ? local.query(q) : undefined;
  };
  const dependsOnUnsettled = (q: AggregateQuery) => (isGraphFunction(q.fn) ? unsettled.hasSeries(q.series) : unsettled.get(q.series, q.key) === true);
  const usersOf = async (ids: readonly string[]) => {
    const missing = ids.filter((id) => id !== '' && !users.has(id));
    if (missing.length > 0) {
      const read = await repos.users.getUsers(missing);
      for (let i = 0; i < missing.length; i++) users.set(missing[i] as string, read[i] ?? null);
    }
    return ids.map((id) => users.get(id) ?? null);
  };
  const note = (series: string, key: string) => {
    unsettled.set(series, key, true);
  };
  const repositories: Repositories = {
    ...repos,
    transactions: {
      ...repos.transactions,
      async getTransaction(id) {
        if (!transactions.has(id)) transactions.set(id, await repos.transactions.getTransaction(id));
        return transactions.get(id) ?? null;
      },
      async saveOutcome(outcome) {
        pending.push(outcome);
        transactions.set(outcome.transaction.transaction.transactionId, outcome.transaction);
        applyOutcomeUsers(users, outcome.seenUserIds, outcome.userUpdates, outcome.now);
        local.apply(outcome.aggregates.remove, outcome.aggregates.add);
        for (const e of outcome.aggregates.add) note(e.series, e.key);
        for (const r of outcome.aggregates.remove) note(r.series, r.key);
        return [];
      },
    },
    users: { ...repos.users, getUsers: usersOf, getUser: async (id) => (await usersOf([id]))[0] ?? null },
    aggregates: {
      ...repos.aggregates,
      async queryAggregates(queries) {
        const known = queries.map(answer);
        const unanswered = known.flatMap((value, i) => (value === undefined ? [i] : []));
        const out = known as AggregateValue[];
        if (unanswered.length === 0) return out;
        // The store answers what the chunk cannot: after the outcomes the reads depend on are stored.
        if (unanswered.some((i) => dependsOnUnsettled(queries[i] as AggregateQuery))) await settle();
        const read = await repos.aggregates.queryAggregates(unanswered.map((i) => queries[i] as AggregateQuery));
        unanswered.forEach((position, j) => {
          out[position] = read[j] ?? null;
        });
        return out;
      },
    },
    lists: {
      ...repos.lists,
      async lookupListItems(listId, probes) {
        const known = probes.map((p) => listed.get(probeKey(listId, p)));
        if (known.every((k) => k !== undefined)) return known as boolean[];
        return repos.lists.lookupListItems(listId, probes);
      },
    },
  };
  return { repositories, flush };
}
