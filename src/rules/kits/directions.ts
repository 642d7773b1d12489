import type { AggregateFunction, AggregateValue } from '../../aggregation/aggregate-store.js';
import type { Transaction } from '../../domain/index.js';
import type { CheckReceiver, CheckSender } from '../parameters.js';
import type { SeriesName } from '../series.js';
import type { AggregateNeed } from '../types.js';
import { createNeed } from './need.js';

type Side = 'ORIGIN' | 'DESTINATION';

/** One aggregate read for a side: its need name and the series it reads. */
export interface SideRead {
  readonly name: string;
  readonly series: SeriesName;
}

/**
 * The fixed need names of a sender/receiver-aware rule, built once per rule (a prefix keeps the
 * names of two kinds of needs apart). The sender's transactions are its sent ones (`'sending'`,
 * series `user-sending`) or all of them (`'all'`, series `user-all`: one entry per transaction, so
 * a self-transfer counts once); the receiver's likewise with `'receiving'`.
 */
export interface SideNames {
  readonly ORIGIN: { readonly sending: readonly SideRead[]; readonly all: readonly SideRead[] };
  readonly DESTINATION: { readonly receiving: readonly SideRead[]; readonly all: readonly SideRead[] };
}

/** Builds the {@link SideNames} of a rule. */
export function createSideNames(prefix: string): SideNames {
  const read = (side: Side, series: SeriesName): readonly SideRead[] => Object.freeze([Object.freeze({ name: `${prefix}:${side}:${series}`, series })]);
  return Object.freeze({
    ORIGIN: Object.freeze({ sending: read('ORIGIN', 'user-sending'), all: read('ORIGIN', 'user-all') }),
    DESTINATION: Object.freeze({ receiving: read('DESTINATION', 'user-receiving'), all: read('DESTINATION', 'user-all') }),
  });
}

/** The series keyed by a user id: what a sender/receiver-aware rule declares it may read. */
export const USER_SERIES: readonly SeriesName[] = Object.freeze(['user-sending', 'user-receiving', 'user-all']);

/**
 * The series the two sides of a sender/receiver-aware rule read with these checks (its
 * `seriesFor`): `'sending'` → `user-sending`, `'receiving'` → `user-receiving`, `'all'` →
 * `user-all`, `'none'` → nothing. An unknown value (never after validation) reads every user series.
 */
export function sideSeries(checkSender: CheckSender, checkReceiver: CheckReceiver): readonly SeriesName[] {
  const out: SeriesName[] = [];
  const add = (series: SeriesName) => {
    if (!out.includes(series)) out.push(series);
  };
  if (checkSender === 'sending') add('user-sending');
  else if (checkSender === 'all') add('user-all');
  else if (checkSender !== 'none') USER_SERIES.forEach(add);
  if (checkReceiver === 'receiving') add('user-receiving');
  else if (checkReceiver === 'all') add('user-all');
  else if (checkReceiver !== 'none') USER_SERIES.forEach(add);
  return out;
}

/** The reads of the sender side, or `null` when it is not checked or has no user. */
export function senderReads(transaction: Transaction, checkSender: CheckSender, names: SideNames): readonly SideRead[] | null {
  return transaction.originUserId && checkSender !== 'none' ? names.ORIGIN[checkSender] : null;
}

/** The reads of the receiver side, or `null` when it is not checked or has no user. */
export function receiverReads(transaction: Transaction, checkReceiver: CheckReceiver, names: SideNames): readonly SideRead[] | null {
  return transaction.destinationUserId && checkReceiver !== 'none' ? names.DESTINATION[checkReceiver] : null;
}

/** Which transactions of each side count (a rule's `checkSender` / `checkReceiver` parameters). */
export interface SideChecks {
  readonly checkSender: CheckSender;
  readonly checkReceiver: CheckReceiver;
}

/** The reads of one side: {@link senderReads} for `ORIGIN`, {@link receiverReads} for `DESTINATION`. */
export function getSideReads(transaction: Transaction, checks: SideChecks, names: SideNames, direction: Side): readonly SideRead[] | null {
  return direction === 'ORIGIN' ? senderReads(transaction, checks.checkSender, names) : receiverReads(transaction, checks.checkReceiver, names);
}

/** The side label of hit descriptions: `Sender` or `Receiver`. */
export function describeSide(direction: Side): string {
  return direction === 'ORIGIN' ? 'Sender' : 'Receiver';
}

/** Plans the needs of both sides over one window with one function. */
export function planSides(
  transaction: Transaction,
  checkSender: CheckSender,
  checkReceiver: CheckReceiver,
  names: SideNames,
  window: { start: number; end: number },
  fn: AggregateFunction,
  includeCurrent = true,
  out: AggregateNeed[] = [],
): AggregateNeed[] {
  const sender = senderReads(transaction, checkSender, names);
  // Indexed loops: this runs for every windowed instance and transaction (no iterator objects).
  if (sender) {
    for (let i = 0; i < sender.length; i++) {
      const r = sender[i] as SideRead;
      out.push(createNeed(r.name, r.series, transaction.originUserId as string, window.start, window.end, fn, transaction.transactionId, includeCurrent));
    }
  }
  const receiver = receiverReads(transaction, checkReceiver, names);
  if (receiver) {
    for (let i = 0; i < receiver.length; i++) {
      const r = receiver[i] as SideRead;
      out.push(createNeed(r.name, r.series, transaction.destinationUserId as string, window.start, window.end, fn, transaction.transactionId, includeCurrent));
    }
  }
  return out;
}

/** Adds up count values of a side's reads. */
export function sumCounts(aggregates: Readonly<Record<string, AggregateValue>>, reads: readonly SideRead[]): number {
  let total = 0;
  for (let i = 0; i < reads.length; i++) {
    const v = aggregates[(reads[i] as SideRead).name];
    if (typeof v === 'number') total += v;
  }
  return total;
}

/** Adds up money sums (bigint) of a side's reads. */
export function sumAmounts(aggregates: Readonly<Record<string, AggregateValue>>, reads: readonly SideRead[]): bigint {
  let total = 0n;
  for (let i = 0; i < reads.length; i++) {
    const v = aggregates[(reads[i] as SideRead).name];
    if (typeof v === 'bigint') total += v;
  }
  return total;
}

/**
 * The two users of a transfer between distinct users — an edge of the transaction graph — or
 * `null` when a side has no user or both sides are one user (a self-transfer is no edge).
 */
export function distinctUserParties(transaction: Transaction): { origin: string; destination: string } | null {
  const origin = transaction.originUserId;
  const destination = transaction.destinationUserId;
  return origin && destination && origin !== destination ? { origin, destination } : null;
}
