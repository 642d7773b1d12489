/**
 * Small helpers the PostgreSQL repositories share: JSON text of a document, the conflict a write
 * that lost a race reports, and a stored transaction's body as read.
 */
import type { Transaction } from '../domain/index.js';
import { initialTransaction } from '../engine/pipeline/apply-event.js';
import { TxmonError } from '../errors.js';

export const concurrentUpdate = (what: string, cause?: unknown) => new TxmonError('CONCURRENT_UPDATE', `The ${what} was changed concurrently`, [], { cause });
export const json = (value: unknown): string => JSON.stringify(value);
/** Whether two JSON values serialize alike (one object is always alike itself). */
export const sameJson = (a: unknown, b: unknown): boolean => a === b || json(a) === json(b);

/**
 * A transaction's body as read from its row (`coalesce(body, current event's body, request)`): when
 * the row left it out before any event (`initial`), the request standing in for it is the request
 * as a new transaction starts it (`initialTransaction`: its state defaulted); else the body read.
 */
export const bodyOf = (read: Transaction, initial: boolean): Transaction => (initial ? initialTransaction(read) : read);
