/**
 * Small helpers the PostgreSQL repositories share: JSON text of a document, and the conflict a
 * write that lost a race reports.
 */
import { TxmonError } from '../errors.js';

export const concurrentUpdate = (what: string, cause?: unknown) => new TxmonError('CONCURRENT_UPDATE', `The ${what} was changed concurrently`, [], { cause });
export const json = (value: unknown): string => JSON.stringify(value);
/** Whether two JSON values serialize alike (one object is always alike itself). */
export const sameJson = (a: unknown, b: unknown): boolean => a === b || json(a) === json(b);
