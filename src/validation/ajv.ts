/**
 * The one ajv instance txmon compiles every schema with, and its custom formats.
 */
import { Ajv } from 'ajv';
import { COUNTRY_CODES, CURRENCY_CODES } from '../domain/codes.js';
import { isCalendarDate } from '../domain/time.js';

/** Name of the ajv format that accepts the codes of `COUNTRY_CODES`. */
export const COUNTRY_CODE_FORMAT = 'country-code';
/** Name of the ajv format that accepts the codes of `CURRENCY_CODES`. */
export const CURRENCY_CODE_FORMAT = 'currency-code';
/** Name of the ajv format that accepts an existing calendar date `YYYY-MM-DD` (no 30 February). */
export const CALENDAR_DATE_FORMAT = 'calendar-date';


/**
 * Creates an ajv instance configured the way txmon needs it. Exported for tests and for hosts that
 * need an isolated instance; the library itself only uses {@link ajv}.
 *
 * - `allErrors`: report every problem of a request, not just the first.
 * - `strict: false`: TypeBox and OpenAPI annotations (`discriminator`, `ui:schema`…) are not errors.
 * - `strictNumbers: true`: NaN and ±Infinity are not numbers (`strict: false` would turn it off).
 * - `discriminator: true`: a `oneOf` with `discriminator` validates only the branch its tag selects.
 * - `verbose: true`: errors carry their schema so messages can list allowed values. Errors also
 *   carry the data, which txmon never copies into a message or detail.
 * - `messages: false`: txmon writes its own messages (smaller generated code).
 * - no `coerceTypes`, `useDefaults` or `removeAdditional`: validation never mutates its input.
 */
export function createAjv(): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: false,
    strictNumbers: true,
    discriminator: true,
    verbose: true,
    messages: false,
  });
  instance.addFormat(COUNTRY_CODE_FORMAT, { type: 'string', validate: (value: string) => COUNTRY_CODES.has(value) });
  instance.addFormat(CURRENCY_CODE_FORMAT, { type: 'string', validate: (value: string) => CURRENCY_CODES.has(value) });
  instance.addFormat(CALENDAR_DATE_FORMAT, { type: 'string', validate: isCalendarDate });
  return instance;
}

/** The shared ajv instance (formats `country-code` and `currency-code` registered). */
export const ajv: Ajv = createAjv();
