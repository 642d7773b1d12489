import type { AggregateFunction, AggregateValue } from '../aggregation/aggregate-store.js';
import type { Transaction } from '../domain/index.js';
import type { CheckReceiver, CheckSender } from './parameters.js';
import type { AggregateNeed } from './types.js';

/** One side of a transaction a directional rule looks at, with the series it reads for that side. */
export interface SideQuery {
  readonly direction: 'ORIGIN' | 'DESTINATION';
  readonly userId: string;
  /** Need names, one per series read (sent and/or received transactions of the user). */
  readonly names: readonly string[];
}

/**
 * Plans the needs of a sender/receiver-aware rule: for the sender, its sent transactions
 * (`checkSender: 'sending'`) or sent and received ones (`'all'`); for the receiver, its received
 * transactions (`'receiving'`) or both (`'all'`); `'none'` skips that side.
 */
export function planSides(
  transaction: Transaction,
  checkSender: CheckSender,
  checkReceiver: CheckReceiver,
  prefix: string,
  window: { start: number; end: number },
  fn: AggregateFunction,
  includeCurrent = true,
): { sides: SideQuery[]; needs: AggregateNeed[] } {
  const sides: SideQuery[] = [];
  const needs: AggregateNeed[] = [];
  const add = (direction: 'ORIGIN' | 'DESTINATION', userId: string, series: ('user-sending' | 'user-receiving' | 'user-all')[]) => {
    const names: string[] = [];
    for (const s of series) {
      const name = `${prefix}:${direction}:${s}`;
      names.push(name);
      needs.push({ name, series: s, key: userId, start: window.start, end: window.end, fn, includeCurrent });
    }
    sides.push({ direction, userId, names });
  };
  if (transaction.originUserId && checkSender !== 'none') {
    // 'all' reads the user-all series: one entry per transaction, so a self-transfer counts once.
    add('ORIGIN', transaction.originUserId, checkSender === 'all' ? ['user-all'] : ['user-sending']);
  }
  if (transaction.destinationUserId && checkReceiver !== 'none') {
    add('DESTINATION', transaction.destinationUserId, checkReceiver === 'all' ? ['user-all'] : ['user-receiving']);
  }
  return { sides, needs };
}

/** Adds up count values of a side's needs. */
export function sumCounts(aggregates: Readonly<Record<string, AggregateValue>>, names: readonly string[]): number {
  let total = 0;
  for (const n of names) {
    const v = aggregates[n];
    if (typeof v === 'number') total += v;
  }
  return total;
}

/** Adds up money sums (bigint) of a side's needs. */
export function sumAmounts(aggregates: Readonly<Record<string, AggregateValue>>, names: readonly string[]): bigint {
  let total = 0n;
  for (const n of names) {
    const v = aggregates[n];
    if (typeof v === 'bigint') total += v;
  }
  return total;
}
