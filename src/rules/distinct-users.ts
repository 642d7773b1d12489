import { Type, type Static } from '@sinclair/typebox';
import { describeTimeWindow, windowStart } from '../aggregation/time-window.js';
import { TimeWindowSchema } from '../domain/schemas/time-window.js';
import type { Transaction } from '../domain/index.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from './types.js';

/** Parameters shared by the "too many users on one key" rules. */
export function distinctUsersParametersSchema(id: string, thresholdDescription: string) {
  return Type.Object(
    {
      uniqueUsersCountThreshold: Type.Integer({ minimum: 0, maximum: 1_000_000, title: 'Users limit', description: thresholdDescription }),
      timeWindow: TimeWindowSchema,
    },
    { additionalProperties: false, title: `${id} parameters` },
  );
}
type Parameters = Static<ReturnType<typeof distinctUsersParametersSchema>>;

/** What differs between the "too many users on one key" rules. */
export interface DistinctUsersRuleSpec
  extends Pick<RuleDefinition<Parameters>, 'id' | 'name' | 'description' | 'descriptionTemplate' | 'checksFor' | 'typologies'> {
  /** The series keyed by the shared thing (an IP, a payment identifier), whose entries carry `user`. */
  readonly series: 'ip' | 'payment-origin';
  /** The key of the current transaction in that series, `undefined` when it has none. */
  readonly keyOf: (transaction: Transaction) => string | undefined;
  readonly thresholdDescription: string;
}

/**
 * Builds a rule that hits the sender when the distinct sender user ids seen with this
 * transaction's key in the window, this transaction's sender included, are more than
 * `uniqueUsersCountThreshold` (strict `>`). No key → no aggregate and no hit; a transaction without
 * a sender still counts the key's earlier users.
 */
export function createDistinctUsersRule(spec: DistinctUsersRuleSpec): RuleDefinition<Parameters> {
  const NEED = 'users';
  return {
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema: distinctUsersParametersSchema(spec.id, spec.thresholdDescription),
    defaultParameters: { uniqueUsersCountThreshold: 10, timeWindow: { units: 1, granularity: 'day', rollingBasis: true } },
    defaultAction: 'FLAG',
    defaultNature: 'FRAUD',
    labels: [],
    defaultCasePriority: 'P1',
    checksFor: spec.checksFor,
    types: ['Diversity'],
    typologies: spec.typologies,
    series: [spec.series],
    aggregates({ transaction, parameters }): AggregateNeed[] {
      const key = spec.keyOf(transaction);
      if (!key) return [];
      const end = transaction.timestamp;
      const user = transaction.originUserId;
      // A distinct count cannot add the current transaction afterwards: its sender is passed as present.
      return [
        {
          name: NEED,
          series: spec.series,
          key,
          start: windowStart(end, parameters.timeWindow),
          end,
          fn: 'distinct',
          field: 'user',
          excludeId: transaction.transactionId,
          includeCurrent: false,
          ...(user ? { includeValue: user } : {}),
        },
      ];
    },
    check({ parameters, aggregates }): RuleHit[] {
      const count = aggregates[NEED];
      if (typeof count !== 'number' || count <= parameters.uniqueUsersCountThreshold) return [];
      return [
        {
          direction: 'ORIGIN',
          vars: { count, window: describeTimeWindow(parameters.timeWindow), limit: parameters.uniqueUsersCountThreshold },
        },
      ];
    },
  };
}
