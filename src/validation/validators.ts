/**
 * Ready validators for every client request txmon accepts. Each runs `assertSafeJson`, then the
 * schema, and returns its input typed (no copy). Compiled on first use.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import {
  BusinessUserSchema,
  CommentRequestSchema,
  ConsumerUserSchema,
  PresignedUrlRequestSchema,
  RULE_INSTANCE_READ_ONLY_FIELDS,
  RuleInstanceRequestSchema,
  TransactionEventSchema,
  TransactionSchema,
  type BusinessUser,
  type CommentRequest,
  type ConsumerUser,
  type PresignedUrlRequest,
  type RuleInstanceRequest,
  type Transaction,
  type TransactionEvent,
} from '../domain/schemas/index.js';
import { invalidRequest, type ErrorDetail } from '../errors.js';
import { appendPointer } from './pointer.js';
import { assertSafeJson } from './safe-json.js';
import { createValidator, type Validator } from './validator.js';

function defineLazyValidator<S extends TSchema>(schema: S, what: string): Validator<Static<S>> {
  let validate: Validator<Static<S>> | undefined;
  return (input) => {
    validate ??= createValidator(schema, { what });
    return validate(input);
  };
}

/**
 * Validates a `POST /transactions` body.
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validateTransaction: Validator<Transaction> = defineLazyValidator(TransactionSchema, 'transaction');

/**
 * Validates a `POST /events/transaction` body.
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validateTransactionEvent: Validator<TransactionEvent> = defineLazyValidator(TransactionEventSchema, 'transaction event');

/**
 * Validates a `POST /consumer/users` body.
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validateConsumerUser: Validator<ConsumerUser> = defineLazyValidator(ConsumerUserSchema, 'consumer user');

/**
 * Validates a `POST /business/users` body.
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validateBusinessUser: Validator<BusinessUser> = defineLazyValidator(BusinessUserSchema, 'business user');

/**
 * Validates a comment request (user, case or alert comment).
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validateCommentRequest: Validator<CommentRequest> = defineLazyValidator(CommentRequestSchema, 'comment');

/**
 * Validates a `POST /pre-signed-url` body (the size limit is the engine's).
 * @throws TxmonError `VALIDATION_FAILED` (400) with JSON-Pointer details.
 */
export const validatePresignedUrlRequest: Validator<PresignedUrlRequest> = defineLazyValidator(
  PresignedUrlRequestSchema,
  'upload request',
);

const validateRuleInstanceShape = defineLazyValidator(RuleInstanceRequestSchema, 'rule instance');

/**
 * Validates a rule-instance request. Read-only fields (`id`, `runCount`, `hitCount`, `createdAt`,
 * `updatedAt`) are checked first, so they get their own code rather than a generic
 * `additionalProperties` error. `parameters`, `filters` and `logic` are only checked for shape.
 * @throws TxmonError `READ_ONLY_FIELD` (400), one detail (code `read-only`) per read-only field present.
 * @throws TxmonError `VALIDATION_FAILED` (400) for any other schema violation.
 */
export function validateRuleInstanceRequest(input: unknown): RuleInstanceRequest {
  assertSafeJson(input, { what: 'rule instance' });
  if (typeof input === 'object' && input !== null && !Array.isArray(input)) {
    const details: ErrorDetail[] = [];
    for (const field of RULE_INSTANCE_READ_ONLY_FIELDS) {
      if (Object.hasOwn(input, field) && (input as Record<string, unknown>)[field] !== undefined) {
        details.push({ path: appendPointer('', field), code: 'read-only', message: 'is maintained by the service and cannot be set' });
      }
    }
    if (details.length > 0) {
      throw invalidRequest(details, 'rule instance', 'READ_ONLY_FIELD');
    }
  }
  return validateRuleInstanceShape(input);
}
