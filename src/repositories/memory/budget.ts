import { TxmonError } from '../../errors.js';
import type { TransactionOutcome } from '../../engine/repositories.js';
import { measureJsonSize } from '../../validation/index.js';

/** Default of `MemoryRepositoriesOptions.maxStoredBytes`: 256 MiB. */
export const DEFAULT_MAX_STORED_BYTES = 256 * 1024 * 1024;
/** Counted per stored record besides its JSON size: indexes, results, counters. */
export const RECORD_OVERHEAD = 256;
/** Counted per stored transaction besides its JSON size: its rule results, aggregate entries, index entries. */
const TRANSACTION_OVERHEAD = 1024;
/** A decision log entry kept besides its decision's text: the entry's frame and its 64-character hash. */
const DECISION_OVERHEAD = 128;

/** The count of bytes the memory repositories hold, against their limit. */
export interface ByteBudget {
  /** Counts `bytes` more; refuses (before any change) past the limit. */
  reserve(bytes: number): void;
  /** Counts `bytes` fewer. */
  release(bytes: number): void;
}

export function createByteBudget(maxStoredBytes: number): ByteBudget {
  let storedBytes = 0;
  return {
    reserve(bytes) {
      if (storedBytes + bytes > maxStoredBytes) {
        const message = `the stored data would exceed the limit maxStoredBytes (${maxStoredBytes})`;
        throw new TxmonError('LIMIT_EXCEEDED', `Limit exceeded: ${message}`, [{ path: '', code: 'limit', message }]);
      }
      storedBytes += bytes;
    },
    release(bytes) {
      storedBytes = Math.max(0, storedBytes - bytes);
    },
  };
}

/**
 * What one outcome adds to the memory repositories, in the units of `maxStoredBytes`: a new
 * transaction counts its request twice (the request and the transaction kept beside it) plus
 * {@link TRANSACTION_OVERHEAD}; an event counts itself twice (the event and the changes to the
 * transaction it makes) plus {@link RECORD_OVERHEAD}; each alert hit {@link RECORD_OVERHEAD}; the
 * decision log's entry its decision's text plus {@link DECISION_OVERHEAD}.
 */
export function storedBytesOf(outcome: TransactionOutcome): number {
  const kept = outcome.alertHits.length * RECORD_OVERHEAD + outcome.decision.length + DECISION_OVERHEAD;
  if (outcome.event) return 2 * measureJsonSize(outcome.event.event) + RECORD_OVERHEAD + kept;
  return 2 * measureJsonSize(outcome.transaction.request) + TRANSACTION_OVERHEAD + kept;
}
