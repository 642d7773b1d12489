/**
 * Building aggregate needs. Every need of every library rule is made here, with every field of an
 * {@link AggregateNeed} present (`undefined` when unused) and in one order: one hidden class for
 * all needs, so the planner, the aggregate store and the evaluator read them monomorphically.
 * Never by spreading a base object: in Node 20 (V8 11.3) spreading an object that holds a
 * timestamp (a double beyond the small-integer range) into a literal takes V8's slow path, several
 * µs per need, where this literal costs tens of ns.
 */
import type { AggregateFunction } from '../../aggregation/aggregate-store.js';
import type { AggregateNeed } from '../types.js';

/** The fields of a need that only some functions read (see `AggregateQuery`). */
export interface NeedExtras {
  readonly field?: string | undefined;
  readonly includeValue?: string | undefined;
  readonly values?: readonly string[] | undefined;
  readonly limit?: number | undefined;
  readonly fanOut?: number | undefined;
}

const NO_EXTRAS: NeedExtras = Object.freeze({});

/**
 * A need named `name` for `fn` over [start, end] of (`series`, `key`), leaving out the entry
 * `excludeId`, adding the current transaction's own contribution when `includeCurrent`.
 */
export function createNeed(
  name: string,
  series: AggregateNeed['series'],
  key: string,
  start: number,
  end: number,
  fn: AggregateFunction,
  excludeId: string | undefined,
  includeCurrent: boolean,
  extras: NeedExtras = NO_EXTRAS,
): AggregateNeed {
  return {
    name,
    series,
    key,
    start,
    end,
    fn,
    field: extras.field,
    excludeId,
    includeCurrent,
    includeValue: extras.includeValue,
    values: extras.values,
    limit: extras.limit,
    fanOut: extras.fanOut,
  };
}
