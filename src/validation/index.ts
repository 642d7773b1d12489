/** Validation: the shared ajv instance, compiled validators, ajv error → detail mapping, JSON guard. */
export { ajv, createAjv, COUNTRY_CODE_FORMAT, CURRENCY_CODE_FORMAT } from './ajv.js';
export { mapAjvErrors, MAX_ERROR_DETAILS, PATTERN_MESSAGE_KEYWORD } from './ajv-errors.js';
export { interpretSchema, type InterpretSchemaOptions, type SchemaVerdict } from './interpret-schema.js';
export { appendPointer, escapePointerToken } from './pointer.js';
export {
  assertSafeJson,
  copySafeJson,
  copySafeJsonSized,
  checkOwnedJsonSized,
  FORBIDDEN_KEYS,
  isWellFormedText,
  measureJsonSize,
  SAFE_JSON_DEFAULTS,
  type SafeJsonOptions,
} from './safe-json.js';
export {
  collectSchemaErrors,
  createLazyValidator,
  createValidator,
  validateAgainstSchema,
  type SchemaCheckOptions,
  type Validator,
  type ValidatorOptions,
} from './validator.js';
