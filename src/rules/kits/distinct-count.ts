/**
 * The "too many distinct X in a window" rules: one `distinct` count over
 * the series keyed by what the transaction shares (an IP address, a payment identifier, a user),
 * the transaction's own value counted as present, against a limit (strict `>`).
 */
import { Type, type Static, type TInteger } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, RuleNature, Transaction } from '../../domain/index.js';
import { TimeWindowSchema, type TimeWindow } from '../../domain/schemas/time-window.js';
import { defineRule } from '../define-rule.js';
import { createIdsNeed, evidenceWindow, newestIds } from './evidence.js';
import { createNeed } from './need.js';
import type { SeriesName } from '../series.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';

/** The limit parameter of a distinct-count rule: its name, title and description. */
export interface DistinctLimit<K extends string> {
  readonly parameter: K;
  readonly title: string;
  readonly description: string;
}

/** Parameters of a distinct-count rule: the limit (an integer, 0 to 1,000,000) and `timeWindow`. */
export function distinctCountParametersSchema<K extends string>(id: string, limit: DistinctLimit<K>) {
  const properties = {
    [limit.parameter]: Type.Integer({ minimum: 0, maximum: 1_000_000, title: limit.title, description: limit.description }),
    timeWindow: TimeWindowSchema,
  } as { [P in K]: TInteger } & { timeWindow: typeof TimeWindowSchema };
  return Type.Object(properties, { additionalProperties: false, title: `${id} parameters` });
}

/** The parameters of a distinct-count rule whose limit is named `K`. */
export type DistinctCountParameters<K extends string> = Static<ReturnType<typeof distinctCountParametersSchema<K>>>;

/**
 * What the current transaction's distinct count reads: the series and its key, the entry field
 * counted, and the transaction's own value of that field (counted as present: a distinct count
 * cannot add the current transaction afterwards).
 */
export interface DistinctRead {
  readonly series: SeriesName;
  readonly key: string;
  readonly field: string;
  readonly includeValue: string | undefined;
}

/** What sets a distinct-count rule apart (see {@link defineDistinctCountRule}). */
export interface DistinctCountRuleSpec<K extends string> {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly descriptionTemplate: string;
  readonly limit: DistinctLimit<K> & { readonly default: number };
  readonly defaultTimeWindow: TimeWindow;
  readonly defaultNature: RuleNature;
  readonly checksFor: readonly string[];
  readonly typologies: readonly string[];
  /** The series the reads may name. */
  readonly series: readonly SeriesName[];
  /** The read of this transaction; `null` when it has nothing to count on (no aggregate, no hit). */
  readOf(transaction: Transaction): DistinctRead | null;
  /** The side a hit is on. */
  readonly direction: 'ORIGIN' | 'DESTINATION';
}

const NEED = 'distinct';
const COUNT = 'count';

/**
 * Declares a distinct-count rule: it hits `direction` when the distinct values of the read's field
 * in the window, the transaction's own value included, are more than the limit (strict `>`). The
 * hit's values are `count`, `window` and `limit`. Every such rule is `FLAG`, of type `Diversity`.
 */
export function defineDistinctCountRule<K extends string>(spec: DistinctCountRuleSpec<K>): RuleDefinition<DistinctCountParameters<K>> {
  const limitOf = (parameters: DistinctCountParameters<K>) => (parameters as Record<string, unknown>)[spec.limit.parameter] as number;
  const windowOf = (parameters: DistinctCountParameters<K>) => (parameters as unknown as { timeWindow: TimeWindow }).timeWindow;
  return defineRule({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema: distinctCountParametersSchema(spec.id, spec.limit),
    defaultParameters: { [spec.limit.parameter]: spec.limit.default, timeWindow: spec.defaultTimeWindow } as unknown as DistinctCountParameters<K>,
    defaultAction: 'FLAG',
    defaultNature: spec.defaultNature,
    checksFor: spec.checksFor,
    types: ['Diversity'],
    typologies: spec.typologies,
    series: spec.series,
    aggregates({ transaction, parameters }): AggregateNeed[] {
      const read = spec.readOf(transaction);
      if (read === null) return [];
      const end = transaction.timestamp;
      const includeValue = read.includeValue ? read.includeValue : undefined;
      const start = windowStart(end, windowOf(parameters));
      // Beside the distinct count, the window's transactions (this one included) and their newest
      // ids: the evidence of a hit.
      const count = createNeed(COUNT, read.series, read.key, start, end, 'count', transaction.transactionId, true);
      return [
        createNeed(NEED, read.series, read.key, start, end, 'distinct', transaction.transactionId, false, {
          field: read.field,
          includeValue,
        }),
        count,
        createIdsNeed(count),
      ];
    },
    check({ transaction, parameters, aggregates }): RuleHit[] {
      const count = aggregates[NEED];
      const limit = limitOf(parameters);
      if (typeof count !== 'number' || count <= limit) return [];
      const end = transaction.timestamp;
      const window = evidenceWindow(windowStart(end, windowOf(parameters)), end, windowOf(parameters));
      const total = aggregates[COUNT];
      const evidence: RuleEvidence = {
        direction: spec.direction,
        kind: 'distinct',
        field: spec.readOf(transaction)?.field,
        value: count,
        comparison: '>',
        limit,
        window,
        transactionCount: typeof total === 'number' ? total : 0,
        transactionIds: newestIds(aggregates, [COUNT]),
      } as RuleEvidence;
      return [{ direction: spec.direction, vars: { count, window: describeTimeWindow(windowOf(parameters)), limit }, evidence: [evidence] }];
    },
  });
}
