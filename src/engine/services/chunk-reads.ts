/**
 * A batch chunk evaluated on a store where every read and write is a round trip (a database): the
 * chunk's reads taken in a few round trips before its first record, each record's outcome applied
 * to what the later records read, and the outcomes written together at the end.
 *
 * Exact, not approximate: every answer equals what the store would give if the outcomes before it
 * had been written one by one with no other writer in between — what the chunk's locks guarantee
 * for its transactions and users. Another process's writes to keys no lock covers (a card's or an
 * IP's series, list items) land before or after the chunk as a whole, as they may land before or
 * after any single call. A window that a record of the chunk already added to is answered
 * from its entries (loaded once) plus the chunk's; any read the rehearsal did not foresee (a plan
 * changed by a risk level the chunk moved, a graph read across keys the chunk changed) writes the
 * pending outcomes first and asks the store.
 */
import { computeAggregate, createAggregateStore, type AggregateQuery, type AggregateValue, type SeriesEntry } from '../../aggregation/aggregate-store.js';
import { MAX_LAST_ENTRIES } from '../../aggregation/checks.js';
import { isGraphFunction } from '../../aggregation/graph.js';
import type { StoredUser } from '../../domain/entities.js';
import type { Transaction } from '../../domain/index.js';
import { applyOutcomeUsers } from '../../domain/user-update.js';
import { initialTransaction } from '../pipeline/apply-event.js';
import { outcomeNamingAlerts, type ListProbe, type Repositories, type StoredTransaction, type TransactionOutcome } from '../repositories.js';
import type { TransactionEvaluator } from './evaluate-transaction.js';

/** Repositories for a chunk's records, and the write of what they saved. */
export interface ChunkReads {
  /** What the chunk's records read and save through: see the module's description. */
  readonly repositories: Repositories;
  /**
   * Writes the outcomes saved since the last flush, as one `saveOutcomes`; each saved transaction
   * then reads (through `repositories`) as stored, its result naming the alerts its hits landed
   * in — which `saveOutcome` of `repositories` cannot name (it returns none: nothing is written yet).
   */
  flush(): Promise<void>;
}

/** How the reads of one record are looked up again: the query's every field. */
function queryKey(q: AggregateQuery): string {
  return JSON.stringify([q.series, q.key, q.start, q.end, q.fn, q.field, q.excludeId, q.includeValue, q.values, q.limit, q.fanOut]);
}

const seriesKey = (series: string, key: string) => `${series}\u0000${key}`;
const probeKey = (listId: string, p: ListProbe) => JSON.stringify([listId, p.listType, p.subtype, p.value]);

/** The window of a (series, key) the chunk reads locally: [start, end] as loaded. */
interface LoadedRange {
  start: number;
  end: number;
}

/** What the rehearsal found the chunk will read. */
interface Rehearsal {
  /** Queries of windows no earlier record of the chunk adds to, by {@link queryKey}. */
  readonly queries: Map<string, AggregateQuery>;
  /** Windows an earlier record adds to: loaded whole (up to `MAX_LAST_ENTRIES` entries). */
  readonly ranges: Map<string, { series: string; key: string } & LoadedRange>;
  /** List probes, by list. */
  readonly probes: Map<string, Map<string, ListProbe>>;
}

/**
 * Runs each new record's reads (no decision) on repositories that note them, in order: a window a
 * record reads after an earlier record of the chunk added to it is to be loaded, any other read is
 * fetched as the rehearsal asked it.
 */
async function rehearse(
  repos: Repositories,
  records: readonly Transaction[],
  users: Map<string, StoredUser | null>,
  evaluator: TransactionEvaluator,
): Promise<Rehearsal> {
  const found: Rehearsal = { queries: new Map(), ranges: new Map(), probes: new Map() };
  const added = new Set<string>();
  let asked: AggregateQuery[] = [];
  const noting: Repositories = {
    ...repos,
    users: { ...repos.users, getUsers: async (ids) => ids.map((id) => users.get(id) ?? null), getUser: async (id) => users.get(id) ?? null },
    aggregates: {
      ...repos.aggregates,
      async queryAggregates(queries) {
        for (const q of queries) asked.push(q);
        return queries.map((q) => computeAggregate([], q));
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
  for (const record of records) {
    asked = [];
    const entries = await evaluator.rehearse(initialTransaction(record), noting);
    for (const q of asked) {
      const sk = seriesKey(q.series, q.key);
      if (!isGraphFunction(q.fn) && added.has(sk)) {
        const range = found.ranges.get(sk);
        if (range === undefined) found.ranges.set(sk, { series: q.series, key: q.key, start: q.start, end: q.end });
        else {
          range.start = Math.min(range.start, q.start);
          range.end = Math.max(range.end, q.end);
        }
      } else found.queries.set(queryKey(q), q);
    }
    for (const e of entries) added.add(seriesKey(e.series, e.key));
  }
  return found;
}

/**
 * The chunk's reads: its stored transactions and users, then — unless `importOnly` (no window is
 * read) — a rehearsal of its records' reads and their answers, in one round trip for the windows
 * and one per list probed.
 */
export async function createChunkReads(
  repos: Repositories,
  records: readonly Transaction[],
  evaluator: TransactionEvaluator,
  importOnly: boolean,
): Promise<ChunkReads> {
  const ids = records.map((r) => r.transactionId);
  const storedList = await repos.transactions.getTransactions(ids);
  const transactions = new Map<string, StoredTransaction | null>(ids.map((id, i) => [id, storedList[i] ?? null]));
  const userIds = [...new Set(records.flatMap((r) => [r.originUserId ?? '', r.destinationUserId ?? '']).filter((id) => id !== ''))];
  const userList = await repos.users.getUsers(userIds);
  const users = new Map<string, StoredUser | null>(userIds.map((id, i) => [id, userList[i] ?? null]));

  const values = new Map<string, AggregateValue>();
  const loaded = new Map<string, LoadedRange>();
  const listed = new Map<string, boolean>();
  const local = createAggregateStore();
  if (!importOnly) {
    const seen = new Set<string>();
    const fresh = records.filter((r) => !seen.has(r.transactionId) && seen.add(r.transactionId) && transactions.get(r.transactionId) === null);
    const found = await rehearse(repos, fresh, users, evaluator);
    const queries = [...found.queries.values()];
    const ranges = [...found.ranges.values()];
    const loads: AggregateQuery[] = ranges.map((r) => ({
      series: r.series,
      key: r.key,
      start: r.start,
      end: r.end,
      fn: 'lastEntries',
      limit: MAX_LAST_ENTRIES,
    }));
    const answers = queries.length + loads.length > 0 ? await repos.aggregates.queryAggregates([...queries, ...loads]) : [];
    for (let i = 0; i < queries.length; i++) values.set(queryKey(queries[i] as AggregateQuery), answers[i] ?? null);
    ranges.forEach((r, i) => {
      const entries = answers[queries.length + i] as readonly SeriesEntry[];
      // A full answer may have left older entries of the window out: that window is asked for whole.
      if (entries.length >= MAX_LAST_ENTRIES) return;
      local.apply(
        [],
        entries.map((e) => ({ ...e, series: r.series, key: r.key })),
      );
      loaded.set(seriesKey(r.series, r.key), { start: r.start, end: r.end });
    });
    for (const [listId, byKey] of found.probes) {
      const probes = [...byKey.entries()];
      const hits = await repos.lists.lookupListItems(
        listId,
        probes.map(([, p]) => p),
      );
      for (let i = 0; i < probes.length; i++) listed.set((probes[i] as [string, ListProbe])[0], hits[i] === true);
    }
  }
  return chunkRepositories(repos, { transactions, users, values, loaded, listed, local });
}

/** What {@link chunkRepositories} answers from. */
interface ChunkState {
  readonly transactions: Map<string, StoredTransaction | null>;
  readonly users: Map<string, StoredUser | null>;
  readonly values: Map<string, AggregateValue>;
  readonly loaded: Map<string, LoadedRange>;
  readonly listed: Map<string, boolean>;
  readonly local: ReturnType<typeof createAggregateStore>;
}

/** The repositories a chunk's records run on (see the module's description). */
function chunkRepositories(repos: Repositories, state: ChunkState): ChunkReads {
  const { transactions, users, values, loaded, listed, local } = state;
  let pending: TransactionOutcome[] = [];
  /** (series, key) pairs, and series, the chunk's saved outcomes added entries to. */
  const touched = new Set<string>();
  const touchedSeries = new Set<string>();
  const flush = async () => {
    if (pending.length === 0) return;
    const outcomes = pending;
    pending = [];
    const alerts = await repos.transactions.saveOutcomes(outcomes);
    outcomes.forEach((outcome, i) => {
      const named = alerts[i] ?? [];
      const t = outcome.transaction;
      if (named.length > 0 && transactions.get(t.transaction.transactionId) === t)
        transactions.set(t.transaction.transactionId, outcomeNamingAlerts(outcome, named).transaction);
    });
  };
  const answer = (q: AggregateQuery): AggregateValue | undefined => {
    if (isGraphFunction(q.fn)) return touchedSeries.has(q.series) ? undefined : values.get(queryKey(q));
    const sk = seriesKey(q.series, q.key);
    if (!touched.has(sk)) return values.get(queryKey(q));
    const range = loaded.get(sk);
    return range !== undefined && range.start <= q.start && q.end <= range.end ? local.query(q) : undefined;
  };
  const usersOf = async (ids: readonly string[]) => {
    const missing = ids.filter((id) => id !== '' && !users.has(id));
    if (missing.length > 0) {
      const read = await repos.users.getUsers(missing);
      for (let i = 0; i < missing.length; i++) users.set(missing[i] as string, read[i] ?? null);
    }
    return ids.map((id) => users.get(id) ?? null);
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
        for (const e of outcome.aggregates.add) {
          touched.add(seriesKey(e.series, e.key));
          touchedSeries.add(e.series);
        }
        for (const r of outcome.aggregates.remove) {
          touched.add(seriesKey(r.series, r.key));
          touchedSeries.add(r.series);
        }
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
        // The store answers what the chunk cannot: with the pending outcomes written first.
        await flush();
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
