/**
 * Keyset pages over items held in memory (alerts, cases): filter, order by (sort value, id) and
 * take the items after the page key. Each page reads every stored item once (linear in the store,
 * plus the sort of the matching ones): the memory store is for tests and small deployments.
 */
import { MAX_PAGE_COUNT } from '../../domain/workflow.js';
import type { PageKey, StorePage, WorkflowSortKey } from '../../engine/repositories.js';

/** Compares two (value, id) keys ascending: numbers numerically, strings by code unit, then the ids. */
export function compareKeys(a: PageKey, b: PageKey): number {
  if (a.value !== b.value) return a.value < b.value ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/** The (value, id) key of an alert or a case under `sortBy`. */
export function keyOf(item: { createdTimestamp: number; updatedAt: number; priority: string }, id: string, sortBy: WorkflowSortKey): PageKey {
  const value = sortBy === 'createdTimestamp' ? item.createdTimestamp : sortBy === 'updatedAt' ? item.updatedAt : sortBy === 'priority' ? item.priority : id;
  return { value, id };
}

/** One page of `items` (already filtered): ordered by `key`, after `after`, at most `limit`. */
export function pageOf<T>(
  items: readonly T[],
  key: (item: T) => PageKey,
  query: { readonly sortOrder: 'asc' | 'desc'; readonly after?: PageKey; readonly limit: number },
): StorePage<T> {
  const sign = query.sortOrder === 'asc' ? 1 : -1;
  const keyed = items.map((item) => ({ item, key: key(item) }));
  const after = query.after;
  const rest = after === undefined ? keyed : keyed.filter((k) => sign * compareKeys(k.key, after) > 0);
  rest.sort((a, b) => sign * compareKeys(a.key, b.key));
  return { items: rest.slice(0, query.limit).map((k) => k.item), hasNext: rest.length > query.limit, count: Math.min(items.length, MAX_PAGE_COUNT) };
}
