/**
 * The rules that count a user's transactions per side over their series reads (R-77, R-124,
 * a few counts per read, each named `<read name>:<suffix>`, planned for every
 * checked side and added up over the side's reads by the check; and
 * {@link defineMatchingCountRule}, which declares a rule that counts the transactions matching a
 * condition (R-77 high-risk countries, R-130 round amounts).
 */
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import type { AggregateValue } from '../../aggregation/aggregate-store.js';
import { describeTimeWindow, windowStart } from '../../aggregation/time-window.js';
import type { RuleEvidence, Transaction } from '../../domain/index.js';
import { MONEY_SCALE, toScaled } from '../../domain/money.js';
import { TimeWindowSchema, type TimeWindow } from '../../domain/schemas/time-window.js';
import { defineRule, needNamePrefix } from '../define-rule.js';
import { CheckReceiverSchema, CheckSenderSchema } from '../parameters.js';
import type { AggregateNeed, RuleDefinition, RuleHit } from '../types.js';
import { evidenceWindow } from './evidence.js';
import { createNeed } from './need.js';
import { createSideNames, describeSide, getSideReads, sideSeries, USER_SERIES, type SideChecks, type SideNames, type SideRead } from './directions.js';

/** One count a side needs per read (the window ends at the current transaction and includes it). */
export interface SideCount {
  /** Name suffix: the need of read `r` is named `<r.name>:<suffix>`. */
  readonly suffix: string;
  /** Start of the window (epoch ms; `-Infinity` for all time). */
  readonly start: number;
  readonly fn: 'count' | 'countIn';
  /** With `countIn`: the entry value compared and the values counted. */
  readonly countIn?: { readonly field: string; readonly values: readonly string[] };
}

/** The `countIn` of series entries with a round amount (`round: '1'`, see `series.ts`). */
export const ROUND_ENTRIES = Object.freeze({ field: 'round', values: Object.freeze(['1']) });

/** The name of the `suffix` count of one read. */
function countName(read: SideRead, suffix: string): string {
  return `${read.name}:${suffix}`;
}

/**
 * Plans the counts of both sides: for each side with reads (checked, with a user), the counts
 * `countsOf(direction)` returns (`null`: the side cannot hit, no needs), for each read in turn,
 * in the given order.
 */
export function planSideCounts(
  transaction: Transaction,
  checks: SideChecks,
  names: SideNames,
  countsOf: (direction: 'ORIGIN' | 'DESTINATION') => readonly SideCount[] | null,
): AggregateNeed[] {
  const end = transaction.timestamp;
  const needs: AggregateNeed[] = [];
  for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
    const reads = getSideReads(transaction, checks, names, direction);
    const counts = reads ? countsOf(direction) : null;
    if (!reads || !counts) continue;
    // Reads exist only for a side with a user.
    const key = (direction === 'ORIGIN' ? transaction.originUserId : transaction.destinationUserId) as string;
    for (const r of reads) {
      for (const c of counts) {
        needs.push(createNeed(countName(r, c.suffix), r.series, key, c.start, end, c.fn, transaction.transactionId, true, c.countIn));
      }
    }
  }
  return needs;
}

/** Adds up the `suffix` counts of a side's reads (a missing value counts 0). */
export function sumSideCounts(aggregates: Readonly<Record<string, AggregateValue>>, reads: readonly SideRead[], suffix: string): number {
  let total = 0;
  for (const r of reads) {
    const v = aggregates[countName(r, suffix)];
    if (typeof v === 'number') total += v;
  }
  return total;
}

/**
 * `part / total > percent %`, exactly: `part × 100 > percent × total` on integers (the percentage
 * taken at 10^-8 precision, from its decimal text).
 */
export function isShareAbovePercent(part: number, total: number, percent: number): boolean {
  return BigInt(part) * 100n * MONEY_SCALE > toScaled(percent) * BigInt(total);
}

/**
 * `percent` % of `count` as exact decimal text (`percentOf(1, 3)` → `"0.03"`): the percentage taken
 * at 10^-8 precision from its decimal text, as {@link isShareAbovePercent} takes it.
 */
export function percentOf(percent: number, count: number): string {
  // toScaled(percent) × count is the product at scale 10^8; one more 100 makes 10^10.
  const digits = (toScaled(percent) * BigInt(count)).toString().padStart(11, '0');
  const whole = digits.slice(0, -10);
  const fraction = digits.slice(-10).replace(/0+$/, '');
  return fraction === '' ? whole : `${whole}.${fraction}`;
}

// ---------------------------------------------------------------------------------------------
// Declaring a matching-count rule.
// ---------------------------------------------------------------------------------------------

/** The parameters every matching-count rule has. */
export interface MatchingCountParameters extends SideChecks {
  readonly timeWindow: TimeWindow;
  readonly transactionsLimit: number;
  readonly initialTransactions?: number;
}

/**
 * The parameters schema of a matching-count rule: `timeWindow`, `transactionsLimit`, the rule's
 * own `extra` parameters, `checkSender`, `checkReceiver` and the optional `initialTransactions`.
 */
export function matchingCountParametersSchema<X extends TProperties>(
  id: string,
  texts: { readonly limitDescription: string; readonly initialTransactionsDescription: string },
  extra: X,
) {
  return Type.Object(
    {
      timeWindow: TimeWindowSchema,
      transactionsLimit: Type.Integer({ minimum: 0, maximum: 1_000_000, title: 'Transactions limit', description: texts.limitDescription }),
      ...extra,
      checkSender: CheckSenderSchema,
      checkReceiver: CheckReceiverSchema,
      initialTransactions: Type.Optional(
        Type.Integer({ minimum: 0, maximum: 1_000_000, title: 'Initial transactions', description: texts.initialTransactionsDescription }),
      ),
    },
    { additionalProperties: false, title: `${id} parameters` },
  );
}

/** The parameters of a matching-count rule with `extra` parameters `X`. */
export type MatchingCountParametersOf<X extends TProperties> = Static<ReturnType<typeof matchingCountParametersSchema<X>>>;

type Direction = 'ORIGIN' | 'DESTINATION';

/** What sets a matching-count rule apart (see {@link defineMatchingCountRule}). */
export interface MatchingCountRuleSpec<X extends TProperties> {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly descriptionTemplate: string;
  /** Description of `transactionsLimit`. */
  readonly limitDescription: string;
  /** Description of `initialTransactions`. */
  readonly initialTransactionsDescription: string;
  /** The rule's own parameters (schema properties), placed after `transactionsLimit`. */
  readonly parameters: X;
  readonly defaultParameters: MatchingCountParametersOf<X>;
  readonly checksFor: readonly string[];
  readonly types: readonly string[];
  readonly typologies: readonly string[];
  /** Whether the current transaction is one the rule counts, on this side: only such a side can hit. */
  matches(transaction: Transaction, direction: Direction, parameters: MatchingCountParametersOf<X>): boolean;
  /** The counts a side needs over the window starting at `start`, each with its own name suffix. */
  countsOf(parameters: MatchingCountParametersOf<X>, start: number): readonly SideCount[];
  /** The side's number of matching transactions, from its counts added up by suffix. */
  countOf(sum: (suffix: string) => number, parameters: MatchingCountParametersOf<X>): number;
  /** Hit values besides `side`, `count`, `window` and `limit`. */
  varsOf?(transaction: Transaction, direction: Direction, parameters: MatchingCountParametersOf<X>): Readonly<Record<string, string | number>>;
}

/**
 * Declares a matching-count rule: a side hits when its user's matching transactions in the window,
 * this one included, are more than `transactionsLimit` (strict `>`), the current transaction
 * matches on that side (the alert is on a transaction that adds to the pattern), and, with
 * `initialTransactions`, the user has at least that many transactions of all time in the side's
 * series (this one included). Every such rule is `FLAG` / `AML` and reads the user series its
 * side checks choose. The hit's values are `side`, `count`, `window`, the rule's own, and `limit`.
 */
export function defineMatchingCountRule<X extends TProperties>(spec: MatchingCountRuleSpec<X>): RuleDefinition<MatchingCountParametersOf<X>> {
  const names = createSideNames(needNamePrefix(spec.id));
  // The parameters every matching-count schema has (TypeScript cannot see them through a generic `X`).
  const shared = (parameters: MatchingCountParametersOf<X>) => parameters as unknown as MatchingCountParameters;
  return defineRule({
    id: spec.id,
    name: spec.name,
    description: spec.description,
    descriptionTemplate: spec.descriptionTemplate,
    parametersSchema: matchingCountParametersSchema(spec.id, spec, spec.parameters),
    defaultParameters: spec.defaultParameters,
    defaultAction: 'FLAG',
    defaultNature: 'AML',
    checksFor: spec.checksFor,
    types: spec.types,
    typologies: spec.typologies,
    series: USER_SERIES,
    seriesFor: (parameters) => sideSeries(shared(parameters).checkSender, shared(parameters).checkReceiver),
    aggregates({ transaction, parameters }) {
      const p = shared(parameters);
      const counts = [...spec.countsOf(parameters, windowStart(transaction.timestamp, p.timeWindow))];
      if (p.initialTransactions !== undefined) counts.push({ suffix: 'allTime', start: Number.NEGATIVE_INFINITY, fn: 'count' });
      return planSideCounts(transaction, p, names, (direction) => (spec.matches(transaction, direction, parameters) ? counts : null));
    },
    check({ transaction, parameters, aggregates }): RuleHit[] {
      const p = shared(parameters);
      const hits: RuleHit[] = [];
      for (const direction of ['ORIGIN', 'DESTINATION'] as const) {
        const reads = getSideReads(transaction, p, names, direction);
        if (!reads || !spec.matches(transaction, direction, parameters)) continue;
        const count = spec.countOf((suffix) => sumSideCounts(aggregates, reads, suffix), parameters);
        const allTime = p.initialTransactions !== undefined ? sumSideCounts(aggregates, reads, 'allTime') : 0;
        if (p.initialTransactions !== undefined && allTime < p.initialTransactions) continue;
        if (count <= p.transactionsLimit) continue;
        const end = transaction.timestamp;
        // The matching transactions against the limit: no ids, as the window's newest transactions
        // are not all matching ones.
        const evidence: RuleEvidence[] = [
          {
            direction,
            kind: 'matchingCount',
            value: count,
            comparison: '>',
            limit: p.transactionsLimit,
            window: evidenceWindow(windowStart(end, p.timeWindow), end, p.timeWindow),
          },
        ];
        if (p.initialTransactions !== undefined) evidence.push({ direction, kind: 'history', value: allTime, comparison: '>=', limit: p.initialTransactions });
        hits.push({
          evidence,
          direction,
          vars: {
            side: describeSide(direction),
            count,
            window: describeTimeWindow(p.timeWindow),
            ...spec.varsOf?.(transaction, direction, parameters),
            limit: p.transactionsLimit,
          },
        });
      }
      return hits;
    },
  });
}
