import type { AggregateQuery, AggregateValue } from '../../src/aggregation/aggregate-store.js';
import type { WindowIndex } from '../../src/aggregation/window-index.js';

/**
 * The index's answer to `q` through the {@link WindowIndex} method for `q.fn` (series and key are
 * ignored: the index is one key's history). Tests compare it with `computeAggregate` of the same
 * query.
 */
export function askIndex(index: WindowIndex, q: AggregateQuery): AggregateValue {
  const { start, end, excludeId } = q;
  switch (q.fn) {
    case 'count':
      return index.count(start, end, excludeId);
    case 'sum':
      return index.sum(start, end, excludeId);
    case 'amountCount':
      return index.amountCount(start, end, excludeId);
    case 'min':
      return index.min(start, end, excludeId);
    case 'max':
      return index.max(start, end, excludeId);
    case 'distinct':
      return index.distinctCount(start, end, q.field as string, excludeId, q.includeValue);
    case 'latest':
      return index.latest(start, end, excludeId);
    case 'countIn':
      return index.countIn(start, end, q.field as string, q.values ?? [], excludeId);
    case 'sumIn':
      return index.sumIn(start, end, q.field as string, q.values ?? [], excludeId);
    case 'lastAmountCount':
      return index.lastAmountCount(start, end, q.limit as number, excludeId);
    case 'lastMin':
      return index.lastMin(start, end, q.limit as number, excludeId);
    case 'lastMax':
      return index.lastMax(start, end, q.limit as number, excludeId);
  }
}
