import { isIdText, SCHEMA_LIMITS } from '../../domain/index.js';
import { TxmonError } from '../../errors.js';

/**
 * An id read from a path or an argument, under the same rule as an id in a body (`IdSchema`):
 * 1 to {@link SCHEMA_LIMITS.ID_MAX_LENGTH} characters counted as code points, well-formed text
 * without NUL. The id is not in a body, so the detail's path is the root and the message names
 * `what` alone (not "body …", as a body field's error would).
 * @throws TxmonError `VALIDATION_FAILED` naming `what`
 */
export function assertId(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string' || !isIdText(value)) {
    const message = `${what} must be 1 to ${SCHEMA_LIMITS.ID_MAX_LENGTH} characters of well-formed text without NUL`;
    throw new TxmonError('VALIDATION_FAILED', `Invalid request: ${message}`, [{ path: '', code: 'type', message }]);
  }
}
