/**
 * The current transaction's own part of an aggregate: its entries are not stored yet when it is
 * evaluated, so a need that includes it gets its contribution added to the stored history's value.
 */
import type { AggregateEntry, AggregateValue, SeriesEntry } from '../../aggregation/aggregate-store.js';
import { compareSeriesEntries } from '../../aggregation/checks.js';
import type { AggregateNeed } from '../../rules/types.js';

/**
 * Adds the current transaction's own contribution to a value computed over the other
 * transactions, for needs with `includeCurrent`. Pure.
 */
export function mergeCurrentContribution(need: AggregateNeed, others: AggregateValue, current: readonly SeriesEntry[]): AggregateValue {
  if (!need.includeCurrent) return others;
  let value = others;
  for (let i = 0; i < current.length; i++) {
    const e = current[i] as SeriesEntry;
    if (e.series !== need.series || e.key !== need.key || e.timestamp < need.start || e.timestamp > need.end) continue;
    switch (need.fn) {
      case 'count':
        value = (value as number) + 1;
        break;
      case 'sum':
        if (e.amount !== null) value = (value as bigint) + e.amount;
        break;
      case 'amountCount':
        if (e.amount !== null) value = (value as number) + 1;
        break;
      case 'min':
        if (e.amount !== null && (value === null || e.amount < (value as bigint))) value = e.amount;
        break;
      case 'max':
        if (e.amount !== null && (value === null || e.amount > (value as bigint))) value = e.amount;
        break;
      case 'countIn': {
        const v = e.values?.[need.field ?? ''];
        if (typeof v === 'string' && v !== '' && need.values?.includes(v)) value = (value as number) + 1;
        break;
      }
      case 'sumIn': {
        const v = e.values?.[need.field ?? ''];
        if (e.amount !== null && typeof v === 'string' && v !== '' && need.values?.includes(v)) value = (value as bigint) + e.amount;
        break;
      }
      case 'lastEntries':
        value = withLastEntry(value as readonly AggregateEntry[], e, need.limit ?? 0);
        break;
      case 'distinct':
      case 'latest':
        // Not mergeable: a distinct need passes the current value as `includeValue`; `latest` never
        // includes the current transaction.
        break;
    }
  }
  return value;
}

/**
 * The last `limit` of `last` plus `entry`: `last` already holds the latest `limit` other entries,
 * so an entry older than all of a full list is not among them, and any other takes its place in
 * order, the oldest dropping out. (A need that includes the current transaction excludes its
 * stored version, so `last` never holds `entry.id`; the filter keeps one entry per id regardless.)
 */
function withLastEntry(last: readonly AggregateEntry[], entry: SeriesEntry, limit: number): readonly AggregateEntry[] {
  if (limit <= 0) return last;
  const own: AggregateEntry =
    entry.values === undefined
      ? { id: entry.id, timestamp: entry.timestamp, amount: entry.amount }
      : { id: entry.id, timestamp: entry.timestamp, amount: entry.amount, values: entry.values };
  // `last` is in order: the entry goes in at its place (usually the end: the current transaction
  // is mostly the newest), without a sort. Every windowed rule's evidence ids pass here.
  let at = last.length;
  while (at > 0 && compareSeriesEntries(last[at - 1] as AggregateEntry, own) > 0) at -= 1;
  const merged: AggregateEntry[] = [];
  for (let i = 0; i < at; i++) if ((last[i] as AggregateEntry).id !== entry.id) merged.push(last[i] as AggregateEntry);
  merged.push(own);
  for (let i = at; i < last.length; i++) if ((last[i] as AggregateEntry).id !== entry.id) merged.push(last[i] as AggregateEntry);
  return merged.length > limit ? merged.slice(merged.length - limit) : merged;
}
