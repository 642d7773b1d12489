/**
 * The current transaction's own part of an aggregate: its entries are not stored yet when it is
 * evaluated, so a need that includes it gets its contribution added to the stored history's value.
 */
import type { AggregateValue, SeriesEntry } from '../../aggregation/aggregate-store.js';
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
      case 'distinct':
      case 'latest':
        // Not mergeable: a distinct need passes the current value as `includeValue`; `latest` never
        // includes the current transaction.
        break;
    }
  }
  return value;
}
