import { TRANSACTION_STATES } from '../../domain/index.js';
import type { TransactionState } from '../../domain/index.js';

/** Allowed moves: for each state, the states an event may move the transaction to. */
export type TransitionTable = Readonly<Record<TransactionState, readonly TransactionState[]>>;

const ALL: readonly TransactionState[] = TRANSACTION_STATES;

/**
 * The default transaction lifecycle (docs/wire-format.md#lifecycle). A move to the same state is
 * always allowed (an attribute-only update). DECLINED, EXPIRED, REFUNDED and REVERSED are final.
 */
export const DEFAULT_TRANSITIONS: TransitionTable = Object.freeze({
  CREATED: ALL.filter((s) => s !== 'CREATED'),
  PROCESSING: ['SENT', 'SUCCESSFUL', 'DECLINED', 'SUSPENDED', 'EXPIRED', 'REVERSED'],
  SENT: ['SUCCESSFUL', 'DECLINED', 'EXPIRED', 'REVERSED', 'REFUNDED'],
  SUSPENDED: ['PROCESSING', 'SENT', 'SUCCESSFUL', 'DECLINED', 'EXPIRED'],
  SUCCESSFUL: ['REFUNDED', 'REVERSED'],
  DECLINED: [],
  EXPIRED: [],
  REFUNDED: [],
  REVERSED: [],
});

/** Whether the table allows `from → to` (same state always allowed). */
export function isTransitionAllowed(table: TransitionTable, from: TransactionState, to: TransactionState): boolean {
  return from === to || (table[from]?.includes(to) ?? false);
}
