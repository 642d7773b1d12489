/**
 * What the request log says of a server-side failure (a 5xx): enough to find its cause, never a
 * payload value. The innermost cause's type and code (a SQLSTATE, a socket errno, a txmon code)
 * always; its message only where it comes from the store's connection or its driver — a message
 * such as PostgreSQL's "invalid input syntax" or a JSON parser's can quote the data it choked on.
 */
import { isTxmonError } from '../errors.js';

/** See the module comment; a field of `RequestLogEntry`. */
export interface RequestFault {
  /** The txmon code the request was answered with (`STORE_UNAVAILABLE`, `INTERNAL`, …). */
  readonly code: string;
  /** The innermost cause's class name (`DatabaseError`, `Error`, `TypeError`, …). */
  readonly cause: string;
  /** The innermost cause's own code: a SQLSTATE (`57P01`), a socket error (`ECONNRESET`) or a txmon code. */
  readonly causeCode?: string;
  /** The innermost cause's message, when it cannot hold a value (a connection's or a driver's). */
  readonly message?: string;
  /** Where a cause that is a bug was thrown: its stack frames, without its message. */
  readonly at?: string;
}

/** SQLSTATE classes whose messages describe the server, never the data: 08, 53, 57, 58, and timeouts. */
const SAFE_SQL_STATE = /^(08|53|57|58)|^55P03$|^25P03$|^40001$|^40P01$/;
/** Socket errors (their messages name the address, not the data). */
const ERRNO = /^E[A-Z_]+$/;
/** node-postgres' and PGlite's own messages about the connection. */
const DRIVER_MESSAGE =
  /^(Connection terminated|Client has encountered a connection error|Client was closed|Cannot use a pool after calling end|timeout exceeded when trying to connect|Query read timeout|PGlite is closed)/;

/** The innermost `cause` of `error` (at most 8 deep). */
function innermost(error: unknown): unknown {
  let current = error;
  for (let depth = 0; depth < 8; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause;
    if (cause === undefined || cause === null) return current;
    current = cause;
  }
  return current;
}

/** A stack's frames without its first line (the message); at most five. */
function framesOf(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const frames = stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 5)
    .map((line) => line.trim());
  return frames.length === 0 ? undefined : frames.join(' | ');
}

/** What the log says of `error`, the failure of a request answered with `code` (see the module comment). */
export function faultOf(error: unknown): RequestFault {
  const code = isTxmonError(error) ? error.code : 'INTERNAL';
  const cause = innermost(error);
  const type = typeof cause === 'object' && cause !== null ? (cause.constructor?.name ?? 'Object') : typeof cause;
  const own = (cause as { code?: unknown } | null)?.code;
  const causeCode = typeof own === 'string' && own.length <= 64 ? own : undefined;
  const text = (cause as { message?: unknown } | null)?.message;
  const safe =
    typeof text === 'string' &&
    (isTxmonError(cause) || (causeCode !== undefined && (SAFE_SQL_STATE.test(causeCode) || ERRNO.test(causeCode))) || DRIVER_MESSAGE.test(text));
  const fault: { -readonly [K in keyof RequestFault]: RequestFault[K] } = { code, cause: type };
  if (causeCode !== undefined) fault.causeCode = causeCode;
  if (safe) fault.message = (text as string).slice(0, 300);
  // A fault the store reported needs no stack: its cause says it. Anything else is a bug.
  if (!safe && code === 'INTERNAL') {
    const at = framesOf((cause as { stack?: unknown } | null)?.stack);
    if (at !== undefined) fault.at = at;
  }
  return fault;
}
