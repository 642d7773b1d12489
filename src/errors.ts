/**
 * The one table of error codes. Every error txmon throws is a {@link TxmonError} whose `code`
 * is a key of {@link ERROR_CODES}; the HTTP status comes from this table and nowhere else.
 *
 * Messages name the field or the call and never echo a transaction value (personal data).
 */
export const ERROR_CODES = {
  /** A request body or argument does not match its JSON Schema or a documented limit. */
  VALIDATION_FAILED: 400,
  /** A `ruleId` names no rule in the registry. */
  UNKNOWN_RULE: 400,
  /** Instance `parameters` / `riskLevelParameters` do not match the rule's `parametersSchema` or its own checks (e.g. an R-24 keyword too long once normalised). */
  INVALID_PARAMETERS: 400,
  /** Instance `filters` do not match the filters schema. */
  INVALID_FILTERS: 400,
  /** Custom-rule `logic` is not valid json-logic, uses an operator outside the allowlist or an unknown variable. */
  INVALID_LOGIC: 400,
  /** A request sets a field the service maintains (`id`, `runCount`, `hitCount`, `createdAt`, `updatedAt`). */
  READ_ONLY_FIELD: 400,
  /** An event tries to change `transactionId`, `type`, `timestamp`, `originUserId` or `destinationUserId`. */
  IMMUTABLE_FIELD: 400,
  /** A comment names a file key that this tenant's upload call did not issue. */
  UNKNOWN_FILE_KEY: 400,
  /** A status change of an alert or a case outside the table of allowed moves (docs/alerts-and-cases.md); the detail names the move. */
  INVALID_STATUS_MOVE: 400,
  /** A request body is not valid JSON. */
  MALFORMED_JSON: 400,
  /**
   * A configured limit would be exceeded (a transaction's size, the number of rule instances, a
   * custom rule's work budget, a tenant's stored bytes …); the message and details name the limit.
   */
  LIMIT_EXCEEDED: 400,
  /** `x-api-key` missing or unknown. */
  UNAUTHORIZED: 401,
  TRANSACTION_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  USER_NOT_FOUND: 404,
  CASE_NOT_FOUND: 404,
  ALERT_NOT_FOUND: 404,
  RULE_NOT_FOUND: 404,
  RULE_INSTANCE_NOT_FOUND: 404,
  LIST_NOT_FOUND: 404,
  FILE_NOT_FOUND: 404,
  /** A batch id names no batch of this kind (`GET /batch/…/{batchId}`). */
  BATCH_NOT_FOUND: 404,
  /** A name that no outbox consumer (webhook, subscription) has (`GET /webhooks/{name}`). */
  CONSUMER_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** Same `transactionId` with a different payload. */
  TRANSACTION_ID_CONFLICT: 409,
  /** Same `eventId` with a different payload. */
  EVENT_ID_CONFLICT: 409,
  /** Same `batchId` (of the same kind) with a different body or mode. */
  BATCH_ID_CONFLICT: 409,
  /** The event sequence breaks the transaction lifecycle table. */
  INVALID_STATE_TRANSITION: 409,
  /** A concurrent update kept winning after the engine's retries. */
  CONCURRENT_UPDATE: 409,
  /** An upload URL was used again after its bytes were stored (a file attached as evidence is never replaced). */
  FILE_ALREADY_UPLOADED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  /**
   * The store (a database, PGlite, or a host's repository) failed or could not be reached: a lost
   * connection, a refused one, a store that threw. Nothing of the request was written; answered with
   * `Retry-After`, and sending the same request again is safe (an idempotent replay).
   */
  STORE_UNAVAILABLE: 503,
  /**
   * The store did not answer within a bound: connecting, waiting for a pooled connection, a
   * statement or a lock wait took longer than configured. The unit was rolled back whole; answered
   * with `Retry-After`, and a retry is an idempotent replay.
   */
  STORE_TIMEOUT: 503,
  /** The process has more work waiting than its bound (`maxQueued`): refused at once, with `Retry-After`. */
  OVERLOADED: 503,
  /** The server is starting: its store is not open and migrated yet. Answered with `Retry-After`. */
  NOT_READY: 503,
  /**
   * A connection past the server's connection caps (in all, or from one client address): its first
   * request is answered with `Retry-After` and `Connection: close`, then the connection is closed.
   */
  TOO_MANY_CONNECTIONS: 503,
  /**
   * Never sent: the client closed its connection while its request waited for its turn, so the
   * request was not run. The request log records it under this code, as nginx's 499.
   */
  CLIENT_GONE: 499,
  /** The host passed invalid options to `createEngine` (a programming error, never client input). */
  INVALID_CONFIGURATION: 500,
  /** A genuine internal fault; never caused by client input. */
  INTERNAL: 500,
} as const;

/** A stable, UPPER_SNAKE error code; part of the public API. */
export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Detail codes txmon uses for what a JSON Schema cannot say (schema violations carry the ajv
 * keyword instead: {@link SchemaKeyword}). Part of the public API, listed in docs/errors.md.
 */
export const TXMON_DETAIL_CODES = [
  'conflict',
  'duplicate',
  'duplicate-key',
  'exclusive',
  'forbidden-key',
  'immutable',
  'limit',
  'malformed-json',
  'max-fuzzy-words',
  'max-normalized-length',
  'not-allowed',
  'not-found',
  'not-json',
  'not-uploaded',
  'range',
  'read-only',
  'reserved',
  'size-mismatch',
  'too-complex',
  'too-deep',
  'too-large',
  'transition',
  'unknown-file-key',
  'unknown-operator',
  'unknown-rule',
  'unknown-variable',
  'unsupported',
  'dynamic-var',
  'invalid-node',
] as const;

/** One of {@link TXMON_DETAIL_CODES}. */
export type TxmonDetailCode = (typeof TXMON_DETAIL_CODES)[number];

/** The ajv keyword a schema violation is reported under (`required`, `type`, `maxLength`, …). */
export type SchemaKeyword =
  | 'additionalProperties'
  | 'const'
  | 'enum'
  | 'exclusiveMaximum'
  | 'exclusiveMinimum'
  | 'false-schema'
  | 'format'
  | 'maxItems'
  | 'maxLength'
  | 'maxProperties'
  | 'maximum'
  | 'minItems'
  | 'minLength'
  | 'minProperties'
  | 'minimum'
  | 'multipleOf'
  | 'not'
  | 'pattern'
  | 'required'
  | 'schema'
  | 'type'
  | 'uniqueItems';

/** What a detail's `code` may be. */
export type DetailCode = TxmonDetailCode | SchemaKeyword;

/** One structured problem inside an error: where (JSON Pointer), what (code), and a message. */
export interface ErrorDetail {
  /** JSON Pointer into the request, e.g. `/originAmountDetails/transactionAmount`; `''` for the whole body. */
  readonly path: string;
  /** Machine-readable reason: a {@link DetailCode} (a string on the wire). */
  readonly code: string;
  /** Human-readable reason; names the constraint, never the offending value. */
  readonly message: string;
}

/**
 * The only error class txmon throws on purpose.
 *
 * @example
 * ```ts
 * try { await engine.createTransaction(body) }
 * catch (e) { if (isTxmonError(e) && e.code === 'VALIDATION_FAILED') console.log(e.details) }
 * ```
 */
export class TxmonError extends Error {
  /** Stable code from {@link ERROR_CODES}. */
  readonly code: ErrorCode;
  /** HTTP status for the code. */
  readonly status: number;
  /** Structured problems, each with a JSON Pointer path. Empty when the message says it all. */
  readonly details: readonly ErrorDetail[];

  constructor(code: ErrorCode, message: string, details: readonly ErrorDetail[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TxmonError';
    this.code = code;
    this.status = ERROR_CODES[code];
    this.details = details;
  }

  /** A plain JSON form (no stack), safe to log or send. */
  toJSON(): { code: ErrorCode; status: number; message: string; details: readonly ErrorDetail[] } {
    return { code: this.code, status: this.status, message: this.message, details: this.details };
  }
}

/** Type guard for {@link TxmonError}, also across realms and bundle copies (checks the shape). */
export function isTxmonError(error: unknown): error is TxmonError {
  return (
    error instanceof TxmonError ||
    (typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'TxmonError' &&
      typeof (error as { code?: unknown }).code === 'string' &&
      (error as { code: string }).code in ERROR_CODES)
  );
}

/** The codes of errors about the request's content (400). */
export type InvalidRequestCode = Extract<
  ErrorCode,
  | 'VALIDATION_FAILED'
  | 'INVALID_PARAMETERS'
  | 'INVALID_FILTERS'
  | 'INVALID_LOGIC'
  | 'READ_ONLY_FIELD'
  | 'IMMUTABLE_FIELD'
  | 'UNKNOWN_RULE'
  | 'UNKNOWN_FILE_KEY'
  | 'MALFORMED_JSON'
  | 'INVALID_STATUS_MOVE'
>;

/**
 * A 400 about one part of the request: `code` (default `VALIDATION_FAILED`) with one detail at
 * `path`. The message says what is wrong and where, e.g. `Invalid request: /ruleId names no rule`.
 */
export function invalidField(path: string, detailCode: DetailCode, message: string, code: InvalidRequestCode = 'VALIDATION_FAILED'): TxmonError {
  return new TxmonError(code, `Invalid request: ${path || 'body'} ${message}`, [{ path, code: detailCode, message }]);
}

/**
 * A 400 with several details (e.g. every schema violation of a body), under `code`; the message
 * names `what` and the first problem.
 */
export function invalidRequest(details: readonly ErrorDetail[], what = 'request', code: InvalidRequestCode = 'VALIDATION_FAILED'): TxmonError {
  const first = details[0];
  const more = details.length > 1 ? ` (and ${details.length - 1} more)` : '';
  const message = first === undefined ? `Invalid ${what}` : `Invalid ${what}: ${first.path || 'body'} ${first.message}${more}`;
  return new TxmonError(code, message, details);
}

/** A 404 naming the kind of thing missing (never its id, which may be personal data). */
export function notFound(code: Extract<ErrorCode, `${string}_NOT_FOUND`>, what: string, path?: string): TxmonError {
  return new TxmonError(code, `${what} not found`, path === undefined ? [] : [{ path, code: 'not-found', message: `names no ${what}` }]);
}

/** A 409: the request contradicts what is stored (`code` says how). */
export function conflict(
  code: Extract<
    ErrorCode,
    'TRANSACTION_ID_CONFLICT' | 'EVENT_ID_CONFLICT' | 'BATCH_ID_CONFLICT' | 'INVALID_STATE_TRANSITION' | 'CONCURRENT_UPDATE' | 'FILE_ALREADY_UPLOADED'
  >,
  message: string,
  path?: string,
  detail?: string,
): TxmonError {
  return new TxmonError(
    code,
    message,
    path === undefined ? [] : [{ path, code: code === 'INVALID_STATE_TRANSITION' ? 'transition' : 'conflict', message: detail ?? message }],
  );
}

/** A host's configuration mistake (`INVALID_CONFIGURATION`): `call` names the function, `message` the option. */
export function configurationError(call: string, message: string): TxmonError {
  return new TxmonError('INVALID_CONFIGURATION', `${call}: ${message}`);
}

/**
 * The refusal of a request that would pass limit `name` (value `max`): `LIMIT_EXCEEDED` with one
 * `limit` detail at `path`; `what` says what was counted ("the rule instances", …).
 */
export function limitExceeded(name: string, max: number, what: string, path = ''): TxmonError {
  const message = `${what} would exceed the limit ${name} (${max})`;
  return new TxmonError('LIMIT_EXCEEDED', `Limit exceeded: ${message}`, [{ path, code: 'limit', message }]);
}
