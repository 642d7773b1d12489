/**
 * The "new value" rules (R-3 new country, R-4 new currency): for each side, the user's past
 * transactions of that side (sent for the sender, received for the receiver; all time, this
 * transaction excluded) are counted, and so are those among them that carried the current value.
 * The side hits when the user has at least `initialTransactions` past transactions and none carried
 * the value: unexpected activity on an established account.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { Transaction } from '../../domain/index.js';
import { defineRule, needNamePrefix } from '../define-rule.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';
import { describeSide } from './directions.js';
import { seenEvidence } from './evidence.js';
import { createNeed } from './need.js';

/** Parameters of a new-value rule: how much history makes a user established. */
export function newValueParametersSchema(id: string) {
  return Type.Object(
    {
      initialTransactions: Type.Integer({
        minimum: 0,
        maximum: 1_000_000,
        title: 'Initial transactions',
        description:
          'The rule applies once the user has at least this many earlier transactions on that side (sent for the sender, received for the receiver).',
      }),
    },
    { additionalProperties: false, title: `${id} parameters` },
  );
}
/** The parameters of a new-value rule. */
export type NewValueParameters = Static<ReturnType<typeof newValueParametersSchema>>;

type Direction = 'ORIGIN' | 'DESTINATION';

/** One side of a transaction, as a new-value rule reads it. */
interface NewValueSide {
  readonly direction: Direction;
  readonly userId: string | undefined;
  /** The series of that side: `user-sending` or `user-receiving`. */
  readonly series: 'user-sending' | 'user-receiving';
  /** The current transaction's value for that side, `undefined` when it has none. */
  readonly value: string | undefined;
  readonly past: string;
  readonly seen: string;
}

/** What sets a new-value rule apart (see {@link defineNewValueRule}). */
export interface NewValueRuleSpec {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly descriptionTemplate: string;
  readonly checksFor: readonly string[];
  readonly typologies: readonly string[];
  /** The entry value compared (`counterpartyCountry`, `currency`, see `series.ts`). */
  readonly field: string;
  /** The current transaction's value of `field` for one side, `undefined` when it has none. */
  valueOf(transaction: Transaction, direction: Direction): string | undefined;
  /** Name of the hit value that shows the new value (`country`, `currency`). */
  readonly valueVar: string;
}

/**
 * Declares a new-value rule. The hit's values are `side`, the new value under `valueVar`, and
 * `history` (the side's past transactions). Every such rule is `FLAG` / `AML`, of type `New
 * activity`, with 10 initial transactions by default.
 */
export function defineNewValueRule(spec: NewValueRuleSpec): RuleDefinition<NewValueParameters> {
  const prefix = needNamePrefix(spec.id);
  const names = (direction: Direction) => ({ past: `${prefix}:${direction}:past`, seen: `${prefix}:${direction}:seen` });
  const ORIGIN = names('ORIGIN');
  const DESTINATION = names('DESTINATION');
  const sides = (transaction: Transaction): readonly NewValueSide[] => [
    { direction: 'ORIGIN', userId: transaction.originUserId, series: 'user-sending', value: spec.valueOf(transaction, 'ORIGIN'), ...ORIGIN },
    {
      direction: 'DESTINATION',
      userId: transaction.destinationUserId,
      series: 'user-receiving',
      value: spec.valueOf(transaction, 'DESTINATION'),
      ...DESTINATION,
    },
  ];
  return defineRule({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema: newValueParametersSchema(spec.id),
    defaultParameters: { initialTransactions: 10 },
    defaultAction: 'FLAG',
    defaultNature: 'AML',
    checksFor: spec.checksFor,
    types: ['New activity'],
    typologies: spec.typologies,
    series: ['user-sending', 'user-receiving'],
    aggregates({ transaction }) {
      const needs: AggregateNeed[] = [];
      for (const side of sides(transaction)) {
        if (!side.userId || side.value === undefined) continue;
        const at = transaction.timestamp;
        const id = transaction.transactionId;
        needs.push(createNeed(side.past, side.series, side.userId, Number.NEGATIVE_INFINITY, at, 'count', id, false));
        needs.push(
          createNeed(side.seen, side.series, side.userId, Number.NEGATIVE_INFINITY, at, 'countIn', id, false, { field: spec.field, values: [side.value] }),
        );
      }
      return needs;
    },
    check({ transaction, parameters, aggregates }) {
      const hits: RuleHit[] = [];
      for (const side of sides(transaction)) {
        if (!side.userId || side.value === undefined) continue;
        const past = aggregates[side.past];
        const seen = aggregates[side.seen];
        if (typeof past !== 'number' || typeof seen !== 'number') continue;
        if (past >= parameters.initialTransactions && seen === 0) {
          hits.push({
            direction: side.direction,
            vars: { side: describeSide(side.direction), [spec.valueVar]: side.value, history: past },
            evidence: [
              seenEvidence(side.direction, spec.field, side.value, seen),
              { direction: side.direction, kind: 'history', value: past, comparison: '>=', limit: parameters.initialTransactions },
            ],
          });
        }
      }
      return hits;
    },
  });
}
