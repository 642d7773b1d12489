/**
 * Graph aggregates: questions about several keys of one series at once, where an entry of key `a`
 * whose `values[field]` is `b` is an edge a → b at the entry's timestamp (e.g. `user-sending`
 * entries: sender → receiving user). Two functions:
 *
 * - `hopsTo`: the number of edges of the shortest strictly time-increasing path from `key` to one
 *   of `values` (0 when none within `limit` edges) — funds returned to their origin.
 * - `sharedSource`: among the key's counterparties, the largest number that earlier had one
 *   counterparty of their own in common — money gathered from one source through several accounts.
 *
 * Work is bounded by the query, whatever the history: every key read contributes only its **capped
 * edges**, the last `fanOut` entries of the window other than `excludeId` (the latest by
 * (timestamp, id), as the `last…` functions take them); an entry without a non-empty
 * `values[field]` among them is an edge to nowhere. `hopsTo` reads at most
 * 1 + fanOut + … + fanOut^(limit−1) keys, `sharedSource` at most fanOut + 2, each at most `fanOut`
 * entries. Every store answers through the steps of this module (the memory store reads its
 * indexes, SQL one statement per layer), and {@link referenceGraphAggregate} is the brute-force
 * definition they are checked against.
 */
import type { AggregateQuery, SeriesEntry } from './aggregate-store.js';
import { compareSeriesEntries } from './checks.js';

export { MAX_FAN_OUT, MAX_HOPS } from './checks.js';

/** The graph functions: answered over several keys of the query's series. */
export type GraphFunction = 'hopsTo' | 'sharedSource';

/** Whether `fn` is a {@link GraphFunction}. */
export function isGraphFunction(fn: string): fn is GraphFunction {
  return fn === 'hopsTo' || fn === 'sharedSource';
}

/**
 * Reads the capped edges of `key` (see the module comment), oldest first, calling `visit` with
 * each one's timestamp and target (`undefined`: none).
 */
export type EdgeReader = (key: string, visit: (timestamp: number, target: string | undefined) => void) => void;

/** The state of a `hopsTo` search between two layers. */
export interface HopsSearch {
  /** Edges of the paths the next layer ends. */
  depth: number;
  /** Keys reached by the last layer, each with its earliest arrival (the start key: −∞). */
  frontier: Map<string, number>;
  /** Per key, the earliest arrival over all layers so far. */
  readonly best: Map<string, number>;
  readonly targets: ReadonlySet<string>;
}

/** A search from `q.key` before its first layer. */
export function startHopsSearch(q: AggregateQuery): HopsSearch {
  const frontier = new Map<string, number>([[q.key, Number.NEGATIVE_INFINITY]]);
  return { depth: 0, frontier, best: new Map(frontier), targets: new Set(q.values ?? []) };
}

/**
 * Extends every path by one edge: from each frontier key, each capped edge later than the key's
 * arrival. Returns `true` when one reaches a target (the answer is then `search.depth`). A key is
 * carried into the next layer only when it is reached earlier than ever before: from an earlier
 * arrival every edge of a later one is open too (capped edges do not depend on the arrival), so
 * the shortest path is never lost.
 */
export function expandHopsSearch(search: HopsSearch, read: EdgeReader): boolean {
  search.depth += 1;
  const next = new Map<string, number>();
  let found = false;
  for (const [key, arrival] of search.frontier) {
    read(key, (timestamp, target) => {
      if (found || target === undefined || !(timestamp > arrival)) return;
      if (search.targets.has(target)) {
        found = true;
        return;
      }
      if (timestamp < (search.best.get(target) ?? Number.POSITIVE_INFINITY)) {
        search.best.set(target, timestamp);
        next.set(target, timestamp);
      }
    });
    if (found) return true;
  }
  search.frontier = next;
  return false;
}

/** Whether a `hopsTo` search may go on: below `limit` edges and with somewhere to go. */
export function hopsSearchGoesOn(search: HopsSearch, q: AggregateQuery): boolean {
  return search.depth < (q.limit as number) && search.frontier.size > 0;
}

/** `hopsTo` over `read`: the edges of the shortest path found, 0 when none. */
export function searchHops(q: AggregateQuery, read: EdgeReader): number {
  const search = startHopsSearch(q);
  while (hopsSearchGoesOn(search, q)) if (expandHopsSearch(search, read)) return search.depth;
  return 0;
}

/**
 * The first step of `sharedSource`: the key's counterparties (targets of its capped edges, and
 * `q.includeValue` as an edge at `q.end`), each with the time of its latest edge; the key itself
 * is left out (a self-transfer).
 */
export function counterpartiesOf(q: AggregateQuery, read: EdgeReader): Map<string, number> {
  const latest = new Map<string, number>();
  const add = (timestamp: number, target: string | undefined) => {
    if (target === undefined || target === '' || target === q.key) return;
    if (timestamp > (latest.get(target) ?? Number.NEGATIVE_INFINITY)) latest.set(target, timestamp);
  };
  read(q.key, add);
  add(q.end, q.includeValue);
  return latest;
}

/**
 * The second step of `sharedSource`: for each counterparty, the targets of its capped edges
 * earlier than its latest edge with the key (neither the key nor itself); the answer is the
 * largest number of counterparties sharing one such target, 0 when none.
 */
export function countSharedSource(q: AggregateQuery, counterparties: ReadonlyMap<string, number>, read: EdgeReader): number {
  const through = new Map<string, Set<string>>();
  let most = 0;
  for (const [counterparty, latest] of counterparties) {
    read(counterparty, (timestamp, source) => {
      if (source === undefined || source === q.key || source === counterparty || !(timestamp < latest)) return;
      let set = through.get(source);
      if (set === undefined) {
        set = new Set();
        through.set(source, set);
      }
      set.add(counterparty);
      if (set.size > most) most = set.size;
    });
  }
  return most;
}

/** `sharedSource` over `read`. */
export function searchSharedSource(q: AggregateQuery, read: EdgeReader): number {
  return countSharedSource(q, counterpartiesOf(q, read), read);
}

/**
 * Brute-force reference of the graph functions over `entries` (any order, any series): the capped
 * edges of a key sorted out of all entries, `hopsTo` by trying every walk of at most `limit` edges,
 * `sharedSource` by counting per source straight from its definition. O(fanOut^limit) walks; for
 * tests.
 */
export function referenceGraphAggregate(entries: readonly SeriesEntry[], q: AggregateQuery): number {
  const fanOut = q.fanOut as number;
  const capped = (key: string): { timestamp: number; target: string | undefined }[] =>
    entries
      .filter((e) => e.series === q.series && e.key === key && e.timestamp >= q.start && e.timestamp <= q.end && e.id !== q.excludeId)
      .sort(compareSeriesEntries)
      .slice(-fanOut)
      .map((e) => {
        const target = e.values?.[q.field as string];
        return { timestamp: e.timestamp, target: typeof target === 'string' && target !== '' ? target : undefined };
      });
  if (q.fn === 'hopsTo') {
    const targets = new Set(q.values ?? []);
    let shortest = 0;
    const walk = (key: string, after: number, edges: number): void => {
      if (edges === (q.limit as number) || (shortest !== 0 && edges + 1 >= shortest)) return;
      for (const edge of capped(key)) {
        if (edge.target === undefined || !(edge.timestamp > after)) continue;
        if (targets.has(edge.target)) shortest = edges + 1;
        else walk(edge.target, edge.timestamp, edges + 1);
      }
    };
    walk(q.key, Number.NEGATIVE_INFINITY, 0);
    return shortest;
  }
  const counterparties = new Map<string, number>();
  const edges = capped(q.key);
  if (q.includeValue !== undefined && q.includeValue !== '') edges.push({ timestamp: q.end, target: q.includeValue });
  for (const edge of edges) {
    if (edge.target === undefined || edge.target === q.key) continue;
    counterparties.set(edge.target, Math.max(counterparties.get(edge.target) ?? Number.NEGATIVE_INFINITY, edge.timestamp));
  }
  const sources = new Set<string>();
  for (const counterparty of counterparties.keys()) for (const edge of capped(counterparty)) if (edge.target !== undefined) sources.add(edge.target);
  let most = 0;
  for (const source of sources) {
    if (source === q.key) continue;
    let n = 0;
    for (const [counterparty, latest] of counterparties) {
      if (source !== counterparty && capped(counterparty).some((edge) => edge.target === source && edge.timestamp < latest)) n += 1;
    }
    most = Math.max(most, n);
  }
  return most;
}
