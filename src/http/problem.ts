/**
 * The one place an error becomes an HTTP response: `application/problem+json` with the status of
 * the error's code (from `ERROR_CODES`). A non-txmon error becomes a generic 500 without details:
 * never a stack trace or a payload value.
 */
import { ERROR_CODES, isTxmonError, type ErrorCode, type ErrorDetail } from '../errors.js';
import type { CoreResponse } from './types.js';

/** The media type of every error response. */
export const PROBLEM_TYPE = 'application/problem+json';

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/**
 * Seconds a client is told to wait before retrying a 503 (the store is away, the process is full or
 * still starting): short, since a pool reconnects within milliseconds of its database returning.
 */
export const RETRY_AFTER_SECONDS = 1;

/** Headers an error is answered with besides the problem's own (set by {@link withResponseHeaders}). */
const headersOf = new WeakMap<object, Readonly<Record<string, string>>>();

/**
 * Marks `error` to be answered with `headers` too (the `Retry-After` of a 429, the `Allow` of a
 * 405); returns it, to be thrown.
 */
export function withResponseHeaders<E extends object>(error: E, headers: Readonly<Record<string, string>>): E {
  headersOf.set(error, headers);
  return error;
}

/** The code an error is answered with: its own for a txmon error, else `INTERNAL`. */
export function errorCodeOf(error: unknown): ErrorCode {
  return isTxmonError(error) ? error.code : 'INTERNAL';
}

/**
 * The problem+json {@link CoreResponse} of an error. Carries `message` and `validationErrors` (a
 * string, as clients of the public API expect: docs/wire-format.md#errors) plus `code` and
 * `errors[]` with JSON-Pointer paths. A 500 carries neither the message nor the details; a 503 (the
 * store or the process is unavailable for a moment) carries its message and `Retry-After`.
 */
export function problemOf(error: unknown, extraHeaders: Record<string, string> = {}): CoreResponse {
  const known = isTxmonError(error) ? error : null;
  const code: ErrorCode = known ? (known.code as ErrorCode) : 'INTERNAL';
  const status = ERROR_CODES[code] ?? 500;
  // A 503 says what is unavailable (its message names the store or the limit, never a value); a
  // 500 says nothing.
  const message = known && (status < 500 || status === 503) ? known.message : 'Internal error';
  const details: readonly ErrorDetail[] = known && status < 500 ? known.details : [];
  const body = {
    type: `https://txmon.dev/problems/${code.toLowerCase().replace(/_/g, '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    code,
    message,
    validationErrors: details.map((d) => `${d.path || '/'} ${d.message}`).join('; '),
    errors: details.map((d) => ({ path: d.path, code: d.code, message: d.message })),
  };
  const headers =
    status === 503
      ? { 'content-type': PROBLEM_TYPE, 'retry-after': String(RETRY_AFTER_SECONDS), ...extraHeaders }
      : { 'content-type': PROBLEM_TYPE, ...extraHeaders };
  return { status, headers, body: JSON.stringify(body) };
}

/** The problem+json `Response` of an error (see {@link problemOf}), for fetch-style servers. */
export function renderProblem(error: unknown, extraHeaders: Record<string, string> = {}): Response {
  const problem = problemOf(error, extraHeaders);
  return new Response(problem.body as string, { status: problem.status, headers: problem.headers as Record<string, string> });
}

/**
 * The response to a request that failed with `error`: its problem, with the headers the error was
 * marked with, and no body for `HEAD`. Past the body limit the rest of the body is not read, so
 * the connection cannot be reused: a 413 says `connection: close`.
 */
export function errorResponse(error: unknown, method: string): CoreResponse {
  let headers = (typeof error === 'object' && error !== null ? headersOf.get(error) : undefined) ?? {};
  if (errorCodeOf(error) === 'PAYLOAD_TOO_LARGE') headers = { ...headers, connection: 'close' };
  const problem = problemOf(error, headers);
  return method.toUpperCase() === 'HEAD' ? { ...problem, body: null } : problem;
}
