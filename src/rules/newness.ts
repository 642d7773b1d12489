import type { Transaction } from '../domain/index.js';
import type { AggregateNeed, RuleHit } from './types.js';

/**
 * The shared shape of "new X" rules (R-3 new country, R-4 new currency): for each side, the user's
 * past transactions of that side (sent for the sender, received for the receiver; all time, this
 * transaction excluded) are counted, and so are those among them that carried the current value.
 * The side hits when the user has at least `initialTransactions` past transactions and none carried
 * the value.
 */
export interface NewnessSide {
  readonly direction: 'ORIGIN' | 'DESTINATION';
  readonly userId: string | undefined;
  /** The series of that side: `user-sending` or `user-receiving`. */
  readonly series: 'user-sending' | 'user-receiving';
  /** The entry value field compared (e.g. `counterpartyCountry`, `currency`). */
  readonly field: string;
  /** The current transaction's value for that side, `undefined` when it has none. */
  readonly value: string | undefined;
}

const names = (prefix: string, direction: string) => ({ past: `${prefix}:${direction}:past`, seen: `${prefix}:${direction}:seen` });

/** The two needs per side: the past count and the count of past transactions with the value. */
export function planNewness(transaction: Transaction, prefix: string, sides: readonly NewnessSide[]): AggregateNeed[] {
  const needs: AggregateNeed[] = [];
  for (const side of sides) {
    if (!side.userId || side.value === undefined) continue;
    const n = names(prefix, side.direction);
    const base = {
      series: side.series,
      key: side.userId,
      start: Number.NEGATIVE_INFINITY,
      end: transaction.timestamp,
      excludeId: transaction.transactionId,
      includeCurrent: false,
    };
    needs.push({ ...base, name: n.past, fn: 'count' });
    needs.push({ ...base, name: n.seen, fn: 'countIn', field: side.field, values: [side.value] });
  }
  return needs;
}

/** The hit sides: enough history, and the value never seen in it. */
export function checkNewness(
  prefix: string,
  sides: readonly NewnessSide[],
  aggregates: Readonly<Record<string, unknown>>,
  initialTransactions: number,
  describe: (side: NewnessSide) => Readonly<Record<string, string | number>>,
): RuleHit[] {
  const hits: RuleHit[] = [];
  for (const side of sides) {
    if (!side.userId || side.value === undefined) continue;
    const n = names(prefix, side.direction);
    const past = aggregates[n.past];
    const seen = aggregates[n.seen];
    if (typeof past !== 'number' || typeof seen !== 'number') continue;
    if (past >= initialTransactions && seen === 0) hits.push({ direction: side.direction, vars: describe(side) });
  }
  return hits;
}
