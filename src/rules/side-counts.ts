/**
 * Shared machinery of the rules that count a user's transactions per side over their series reads
 * a few counts per read, each named `<read name>:<suffix>`, planned
 * for every checked side and added up over the side's reads by the check.
 */
import type { AggregateValue } from '../aggregation/aggregate-store.js';
import { MONEY_SCALE, toScaled } from '../domain/money.js';
import type { Transaction } from '../domain/index.js';
import { getSideReads, type SideChecks, type SideNames, type SideRead } from './directions.js';
import type { AggregateNeed } from './types.js';

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
        needs.push({
          series: r.series,
          key,
          start: c.start,
          end,
          excludeId: transaction.transactionId,
          includeCurrent: true,
          name: countName(r, c.suffix),
          fn: c.fn,
          ...(c.countIn ? { field: c.countIn.field, values: c.countIn.values } : {}),
        });
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
