/**
 * Compiled validators over the shared ajv instance: static schemas through {@link createValidator}
 * (or {@link createLazyValidator} for a module's top level), dynamic ones (each rule's
 * `parametersSchema`) through {@link validateAgainstSchema}.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import { invalidRequest, TxmonError, type ErrorDetail, type InvalidRequestCode } from '../errors.js';
import { ajv } from './ajv.js';
import { mapAjvErrors } from './ajv-errors.js';
import { assertSafeJson } from './safe-json.js';

/** Options of {@link createValidator}. */
export interface ValidatorOptions {
  /** Error code thrown on failure (default `VALIDATION_FAILED`). */
  readonly code?: InvalidRequestCode;
  /** JSON Pointer prefixed to every detail path (default `''`, the whole body). */
  readonly basePath?: string;
  /** What the input is, for the error message (default `request`). */
  readonly what?: string;
  /**
   * Run {@link assertSafeJson} before the schema (default `true`). Turn off only for values that
   * already passed it (e.g. a part of a checked request).
   */
  readonly safeJson?: boolean;
  /** `maxDepth` passed to {@link assertSafeJson} (default 32). */
  readonly maxDepth?: number;
}

/** A compiled validator: returns its input, typed, or throws. Never mutates or copies the input. */
export type Validator<T> = (input: unknown) => T;

/** Options of {@link validateAgainstSchema}. */
export interface SchemaCheckOptions {
  /** JSON Pointer prefixed to every detail path, e.g. `/parameters`. */
  readonly basePath: string;
  /** Error code thrown on failure, e.g. `INVALID_PARAMETERS`. */
  readonly code: InvalidRequestCode;
  /** What is validated, for the error message, e.g. `parameters`. */
  readonly what: string;
}

const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Compiles `schema` once per schema object (WeakMap on identity; ajv keeps its own cache too).
 * @throws TxmonError `INTERNAL` when the schema itself is invalid (a programming error, not client input).
 */
function compileSchema(schema: object): ValidateFunction {
  const hit = compiled.get(schema);
  if (hit !== undefined) return hit;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(schema);
  } catch (cause) {
    throw new TxmonError('INTERNAL', 'A JSON Schema used for validation is invalid', [], { cause });
  }
  compiled.set(schema, validate);
  return validate;
}

/** Details of a failed validation; never empty, so a failure can never pass as success. */
function detailsOf(validate: ValidateFunction, basePath: string): ErrorDetail[] {
  const details = mapAjvErrors(validate.errors, basePath);
  return details.length > 0 ? details : [{ path: basePath, code: 'schema', message: 'does not match its schema' }];
}

/**
 * Compiles a TypeBox (or plain JSON) schema once and returns a validator for it. The validator
 * first runs {@link assertSafeJson} (unless `safeJson: false`), then ajv; on success it returns the
 * input itself, typed as `Static<S>`.
 *
 * @example
 * ```ts
 * const parseTransaction = createValidator(TransactionSchema, { what: 'transaction' });
 * const tx = parseTransaction(JSON.parse(body)); // Transaction, or throws TxmonError 400
 * ```
 * @throws TxmonError `options.code` (default `VALIDATION_FAILED`, 400) with one detail per problem
 *   (at most 20), each `{ path: JSON Pointer, code: ajv keyword | forbidden-key | too-deep | too-large | not-json, message }`.
 * @throws TxmonError `INTERNAL` at creation when `schema` is not a valid JSON Schema.
 */
export function createValidator<S extends TSchema>(schema: S, options: ValidatorOptions = {}): Validator<Static<S>> {
  const validate = compileSchema(schema);
  const code = options.code ?? 'VALIDATION_FAILED';
  const basePath = options.basePath ?? '';
  const what = options.what ?? 'request';
  const safeJson = options.safeJson ?? true;
  const safeJsonOptions = { basePath, code, what, ...(options.maxDepth === undefined ? {} : { maxDepth: options.maxDepth }) };
  return (input: unknown): Static<S> => {
    if (safeJson) assertSafeJson(input, safeJsonOptions);
    if (validate(input)) return input as Static<S>;
    throw invalidRequest(detailsOf(validate, basePath), what, code);
  };
}

/**
 * {@link createValidator} compiled on the first call instead of at creation: a module declares its
 * validators at its top level without making every import of txmon pay ajv's compilation (from a
 * few to over 100 ms per schema). The first call pays it once; calls after that cost what
 * {@link createValidator}'s do. Errors are those of {@link createValidator}, `INTERNAL` for an
 * invalid schema included (thrown by the first call).
 *
 * @example
 * ```ts
 * const parseTransaction = createLazyValidator(TransactionSchema, { what: 'transaction' });
 * const tx = parseTransaction(JSON.parse(body)); // compiles TransactionSchema now, then validates
 * ```
 * @throws TxmonError as {@link createValidator}'s validator does.
 */
export function createLazyValidator<S extends TSchema>(schema: S, options: ValidatorOptions = {}): Validator<Static<S>> {
  let validator: Validator<Static<S>> | undefined;
  return (input: unknown): Static<S> => {
    validator ??= createValidator(schema, options);
    return validator(input);
  };
}

/**
 * The details of every problem of `value` against `schema` (empty when valid), paths prefixed with
 * `basePath`. Compiles each schema object once (WeakMap keyed by identity).
 * @throws TxmonError `INTERNAL` when `schema` is not a valid JSON Schema.
 */
export function collectSchemaErrors(schema: object, value: unknown, basePath = ''): ErrorDetail[] {
  const validate = compileSchema(schema);
  return validate(value) ? [] : detailsOf(validate, basePath);
}

/**
 * Validates `value` against a schema known only at run time, such as a rule's `parametersSchema`.
 * Compiles each schema object once (WeakMap keyed by identity, so pass the same object each time).
 * Does not run {@link assertSafeJson}: the value is expected to be part of an already checked request.
 *
 * @example
 * ```ts
 * validateAgainstSchema(rule.parametersSchema, body.parameters, { basePath: '/parameters', code: 'INVALID_PARAMETERS', what: 'parameters' });
 * ```
 * @throws TxmonError `options.code` with details whose paths start with `options.basePath`.
 * @throws TxmonError `INTERNAL` when `schema` is not a valid JSON Schema.
 */
export function validateAgainstSchema(schema: object, value: unknown, options: SchemaCheckOptions): void {
  const details = collectSchemaErrors(schema, value, options.basePath);
  if (details.length > 0) throw invalidRequest(details, options.what, options.code);
}
