import { Immer } from 'immer';
import type { Draft } from 'immer';
import { TxmonError, isTxmonError } from '../../errors.js';
import { TransactionSchema } from '../../domain/index.js';
import type { Transaction, TransactionEvent, TransactionState } from '../../domain/index.js';
import { createLazyValidator } from '../../validation/index.js';
import { isJsonObject } from '../../domain/json.js';
import { DEFAULT_TRANSITIONS, isTransitionAllowed, type TransitionTable } from './lifecycle.js';

/** Options of {@link applyTransactionEvent} and {@link foldTransactionEvents}. */
export interface ApplyEventOptions {
  /** The lifecycle table; {@link DEFAULT_TRANSITIONS} when absent. */
  readonly transitions?: TransitionTable;
}

/** Fields an event can never change (docs/wire-format.md#merge-patch). */
export const IMMUTABLE_TRANSACTION_FIELDS = ['transactionId', 'type', 'timestamp', 'originUserId', 'destinationUserId'] as const;

/**
 * Field names a transaction cannot carry: `getTransaction` returns the transaction merged with its
 * result, so a client field of one of these names would either pass for the engine's own output or
 * be silently overwritten (unknown fields are never dropped silently:
 * docs/wire-format.md#unknown-fields).
 */
export const RESERVED_TRANSACTION_FIELDS = ['status', 'executedRules', 'hitRules', 'riskScoreDetails', 'alerts'] as const;

/**
 * Rejects {@link RESERVED_TRANSACTION_FIELDS} at the top level of a transaction or a patch.
 * @throws TxmonError `VALIDATION_FAILED` with one detail per field (code `reserved`).
 */
export function assertNoReservedFields(value: unknown, basePath = ''): void {
  if (typeof value !== 'object' || value === null) return;
  const details = [];
  for (const field of RESERVED_TRANSACTION_FIELDS) {
    if (Object.hasOwn(value, field)) {
      details.push({ path: `${basePath}/${field}`, code: 'reserved', message: 'is a result field and cannot be part of a transaction' });
    }
  }
  if (details.length > 0) {
    throw new TxmonError('VALIDATION_FAILED', `Invalid request: ${details[0]?.path} is a result field and cannot be part of a transaction`, details);
  }
}

// A private Immer instance: no auto-freeze (deep freezing costs on the hot path and the host's
// own immer settings must not change ours, nor ours theirs).
const immer = new Immer({ autoFreeze: false });

// The merged transaction is re-validated; the input was already checked by assertSafeJson.
const validateMerged = createLazyValidator(TransactionSchema, { what: 'transaction event', safeJson: false });
const PATCH_PATH = '/updatedTransactionAttributes';

type JsonObject = Record<string, unknown>;

/** RFC 7396 merge of `patch` into a draft object: objects merge, arrays and scalars replace, `null` removes. */
export function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
    } else if (isJsonObject(value)) {
      const current = target[key];
      if (isJsonObject(current)) {
        mergeInto(current, value);
      } else {
        const fresh: JsonObject = {};
        mergeInto(fresh, value);
        target[key] = fresh;
      }
    } else {
      target[key] = value;
    }
  }
}

/**
 * The transaction after one event: `updatedTransactionAttributes` applied as a JSON Merge Patch
 * (RFC 7396) and the state moved to `event.transactionState`. Pure: the inputs are not mutated.
 *
 * @throws TxmonError `VALIDATION_FAILED` (400) when the merged transaction is not a valid transaction
 *   (paths under `/updatedTransactionAttributes`).
 * @throws TxmonError `IMMUTABLE_FIELD` (400) when the patch changes `transactionId`, `type`,
 *   `timestamp`, `originUserId`, `destinationUserId` or contradicts the event's `transactionState`.
 * @throws TxmonError `INVALID_STATE_TRANSITION` (409) when the lifecycle table forbids the move.
 * @example
 * ```ts
 * const next = applyTransactionEvent(tx, { transactionId: tx.transactionId, timestamp: tx.timestamp + 1,
 *   transactionState: 'SUCCESSFUL', updatedTransactionAttributes: { reference: 'invoice 42' } });
 * ```
 */
export function applyTransactionEvent(transaction: Transaction, event: TransactionEvent, options: ApplyEventOptions = {}): Transaction {
  const table = options.transitions ?? DEFAULT_TRANSITIONS;
  const from: TransactionState = transaction.transactionState ?? 'CREATED';
  const to = event.transactionState;
  const patch = event.updatedTransactionAttributes as JsonObject | undefined;
  if (patch !== undefined) {
    assertNoReservedFields(patch, PATCH_PATH);
    for (const field of IMMUTABLE_TRANSACTION_FIELDS) {
      if (field in patch && patch[field] !== (transaction as JsonObject)[field]) {
        throw new TxmonError('IMMUTABLE_FIELD', `Invalid request: ${field} cannot be changed by an event`, [
          { path: `/updatedTransactionAttributes/${field}`, code: 'immutable', message: 'cannot be changed by an event' },
        ]);
      }
    }
    if ('transactionState' in patch && patch.transactionState !== to) {
      throw new TxmonError('IMMUTABLE_FIELD', 'Invalid request: the state is set by the event transactionState', [
        {
          path: '/updatedTransactionAttributes/transactionState',
          code: 'immutable',
          message: 'must be absent or equal to the event transactionState',
        },
      ]);
    }
  }
  if (!isTransitionAllowed(table, from, to)) {
    throw new TxmonError('INVALID_STATE_TRANSITION', `Transaction state cannot move from ${from} to ${to}`, [
      { path: '/transactionState', code: 'transition', message: `move from ${from} to ${to} is not allowed` },
    ]);
  }
  if (patch === undefined || Object.keys(patch).length === 0) {
    // A state-only event (the common case): a key-by-key shallow copy with the new state; nested
    // objects are shared, never changed. Immer is for merge patches.
    const out: JsonObject = {};
    for (const key of Object.keys(transaction)) out[key] = (transaction as JsonObject)[key];
    out.transactionState = to;
    return out as Transaction;
  }
  const next = immer.produce(transaction, (draft: Draft<Transaction>) => {
    mergeInto(draft as unknown as JsonObject, patch);
    draft.transactionState = to;
  });
  try {
    validateMerged(next);
  } catch (error) {
    if (!isTxmonError(error)) throw error;
    const details = error.details.map((d) => ({ ...d, path: `${PATCH_PATH}${d.path}` }));
    const first = details[0];
    throw new TxmonError(
      'VALIDATION_FAILED',
      `Invalid transaction event: ${first ? `${first.path} ${first.message}` : 'the updated transaction is invalid'}`,
      details,
    );
  }
  return next;
}

/** An event with its arrival position, as {@link foldTransactionEvents} orders them. */
export interface SequencedEvent {
  readonly event: TransactionEvent;
  /** Arrival order (0, 1, 2, …): the tie-break between events with the same timestamp. */
  readonly arrival: number;
}

/** Orders events by (timestamp, arrival). Returns a new array. */
export function orderEvents<E extends SequencedEvent>(events: readonly E[]): E[] {
  return [...events].sort((a, b) => a.event.timestamp - b.event.timestamp || a.arrival - b.arrival);
}

/**
 * Folds a transaction's events, ordered by (timestamp, arrival), into its current form. The
 * order the events arrived in does not change the result beyond ties of equal timestamps.
 *
 * @param base the transaction as created (state `CREATED` unless the create payload named another).
 * @throws TxmonError `INVALID_STATE_TRANSITION` / `IMMUTABLE_FIELD` as {@link applyTransactionEvent}.
 */
export function foldTransactionEvents(base: Transaction, events: readonly SequencedEvent[], options: ApplyEventOptions = {}): Transaction {
  let current = base;
  for (const { event } of orderEvents(events)) current = applyTransactionEvent(current, event, options);
  return current;
}

/** The state a transaction starts in when its create payload names none. */
const INITIAL_STATE = 'CREATED';

/** The transaction as first stored: the create payload with `transactionState` defaulted to `CREATED`. */
export function initialTransaction(request: Transaction): Transaction {
  if (request.transactionState) return request;
  // A key-by-key copy rather than a spread: same result, but V8 on Node 20 keeps one hidden class.
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(request)) out[key] = (request as Record<string, unknown>)[key];
  out.transactionState = INITIAL_STATE;
  return out as Transaction;
}

/**
 * Whether `body` is {@link initialTransaction}`(request)`: the request itself, or its members
 * (the same values, in the same order) with the default state added last. A store may keep such a
 * body as its request alone.
 */
export function isInitialTransaction(body: Transaction, request: Transaction): boolean {
  if (request.transactionState) return body === request;
  if (body.transactionState !== INITIAL_STATE) return false;
  const keys = Object.keys(body);
  const requestKeys = Object.keys(request);
  if (keys.length !== requestKeys.length + 1 || keys[keys.length - 1] !== 'transactionState') return false;
  for (let i = 0; i < requestKeys.length; i++) {
    const key = requestKeys[i] as string;
    if (keys[i] !== key || (body as Record<string, unknown>)[key] !== (request as Record<string, unknown>)[key]) return false;
  }
  return true;
}
