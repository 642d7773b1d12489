/**
 * What a transaction or an event must be to be taken in: valid JSON of the wire shape (checked
 * against its schema), within the size limits, with no reserved field — the checks the engine makes
 * on every call and a simulation makes on every line of a history, so both refuse the same input
 * with the same error.
 */
import type { UserType } from '../../domain/entities.js';
import {
  BusinessUserSchema,
  ConsumerUserSchema,
  TransactionEventSchema,
  TransactionSchema,
  type BusinessUser,
  type ConsumerUser,
  type Transaction,
  type TransactionEvent,
} from '../../domain/index.js';
import { invalidField, limitExceeded } from '../../errors.js';
import { checkOwnedJsonSized, copySafeJson, copySafeJsonSized, createLazyValidator, measureJsonSize } from '../../validation/index.js';
import { assertSizeWithin, type EngineLimits } from '../limits.js';
import { assertNoReservedFields } from './apply-event.js';

// Inputs pass copySafeJson (the JSON safety check and a deep copy in one pass) first, so these
// validators skip their own check.
const validateTransaction = createLazyValidator(TransactionSchema, { what: 'transaction', safeJson: false });
const validateEvent = createLazyValidator(TransactionEventSchema, { what: 'transaction event', safeJson: false });
const validateConsumer = createLazyValidator(ConsumerUserSchema, { what: 'consumer user', safeJson: false });
const validateBusiness = createLazyValidator(BusinessUserSchema, { what: 'business user', safeJson: false });

/**
 * A create request, checked: a copy of `input` (the caller's object is never kept), or — when the
 * caller `owned` it (fresh from `JSON.parse`, shared with nobody) — `input` itself, checked alike.
 * @throws TxmonError `VALIDATION_FAILED` (schema, JSON safety, reserved fields) or `LIMIT_EXCEEDED` (`maxTransactionSize`)
 */
export function checkTransactionInput(input: unknown, limits: EngineLimits, owned = false): Transaction {
  const { copy, size } = owned ? checkOwnedJsonSized(input) : copySafeJsonSized(input);
  const request = validateTransaction(copy);
  assertSizeWithin(size, limits.maxTransactionSize, 'maxTransactionSize', 'the transaction');
  assertNoReservedFields(request);
  return request;
}

/**
 * An event request, checked: a copy of `input`, or `input` itself when the caller `owned` it.
 * @throws TxmonError `VALIDATION_FAILED` or `LIMIT_EXCEEDED` (`maxEventSize`)
 */
export function checkEventInput(input: unknown, limits: EngineLimits, owned = false): TransactionEvent {
  const { copy, size } = owned ? checkOwnedJsonSized(input) : copySafeJsonSized(input);
  const request = validateEvent(copy);
  assertSizeWithin(size, limits.maxEventSize, 'maxEventSize', 'the transaction event');
  return request;
}

/**
 * Refuses a transaction that an event made larger than `maxTransactionSize`.
 * @throws TxmonError `LIMIT_EXCEEDED` at `/updatedTransactionAttributes`
 */
export function assertUpdatedSizeWithin(transaction: Transaction, limits: EngineLimits): void {
  if (measureJsonSize(transaction) > limits.maxTransactionSize) {
    throw limitExceeded('maxTransactionSize', limits.maxTransactionSize, 'the transaction after this event', '/updatedTransactionAttributes');
  }
}

/**
 * Refuses an event past `maxEventsPerTransaction` (`count` is the transaction's events with it).
 * @throws TxmonError `LIMIT_EXCEEDED` at `/transactionId`
 */
export function assertEventCountWithin(count: number, limits: EngineLimits): void {
  if (count > limits.maxEventsPerTransaction) {
    throw limitExceeded('maxEventsPerTransaction', limits.maxEventsPerTransaction, 'the events of this transaction', '/transactionId');
  }
}

/**
 * A user request, checked, with its type: the one asked for, else `BUSINESS` for a body with a
 * `legalEntity`, else `CONSUMER`.
 * @throws TxmonError `VALIDATION_FAILED` for a type that is neither, or a body that breaks its schema
 */
export function checkUserInput(input: unknown, requested?: unknown): { type: UserType; profile: ConsumerUser | BusinessUser } {
  if (requested !== undefined && requested !== 'CONSUMER' && requested !== 'BUSINESS') {
    throw invalidField('', 'enum', 'user type must be CONSUMER or BUSINESS');
  }
  const type: UserType =
    (requested as UserType | undefined) ?? (typeof input === 'object' && input !== null && 'legalEntity' in input ? 'BUSINESS' : 'CONSUMER');
  const copy = copySafeJson(input);
  return { type, profile: type === 'BUSINESS' ? validateBusiness(copy) : validateConsumer(copy) };
}
