/**
 * The request log of `txmon serve`: one JSON line per request, the same text pino writes for
 * `logger.info(entry, 'request')` with `{ base: null }` and the command's time field. Formatted and
 * written here rather than through pino's logger and destination, which together cost about 10 %
 * of the server's throughput. Lines are gathered and written in one synchronous write every 25 ms,
 * or sooner once 16 KB are waiting — never between a finished response and its write, so that
 * logging never delays a response.
 */
import { writeSync } from 'node:fs';
import type { RequestLogEntry } from '../http/types.js';

/** Something lines can be written to ({@link createFdSink}, or a test's collector). */
export interface LineSink {
  write(text: string): unknown;
}

/** pino's number rule: a non-finite number is written as `null`. */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** pino's levels as numbers: what `level` says in a line. */
export const LOG_LEVELS = Object.freeze({ debug: 20, info: 30, warn: 40, error: 50 });

/** A log level's name. */
export type LogLevel = keyof typeof LOG_LEVELS;

/**
 * The level of a request's line: `error` for a fault of the server or its store (a 500, or a 503
 * saying the store is away or slow), `warn` for a request refused because the server is full or
 * still starting, `info` for everything else.
 */
export function requestLevelOf(entry: RequestLogEntry): number {
  if (entry.status < 500) return LOG_LEVELS.info;
  return entry.status === 500 || entry.code === 'STORE_UNAVAILABLE' || entry.code === 'STORE_TIMEOUT' ? LOG_LEVELS.error : LOG_LEVELS.warn;
}

/**
 * The log line of one request, newline included: byte for byte what pino 10 writes for
 * `pino({ base: null, timestamp })[level](entry, 'request')` (the level of {@link requestLevelOf},
 * time, the entry's fields in their order, `requestId`, `code` and `fault` only when set, msg). `time` is the `,"time":"…"` fragment pino's `timestamp` option returns.
 *
 * @example
 * ```ts
 * formatRequestLine({ method: 'GET', route: '/rules', status: 200, tenant: 'default', durationMs: 3 }, ',"time":"2026-11-22T09:00:00.000Z"');
 * // '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":200,"tenant":"default","durationMs":3,"msg":"request"}\n'
 * ```
 */
export function formatRequestLine(entry: RequestLogEntry, time: string): string {
  const requestId = entry.requestId === undefined ? '' : `,"requestId":${JSON.stringify(entry.requestId)}`;
  const code = entry.code === undefined ? '' : `,"code":${JSON.stringify(entry.code)}`;
  const fault = entry.fault === undefined ? '' : `,"fault":${JSON.stringify(entry.fault)}`;
  return (
    `{"level":${requestLevelOf(entry)}${time},"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)},` +
    `"status":${numberText(entry.status)},"tenant":${JSON.stringify(entry.tenant)},"durationMs":${numberText(entry.durationMs)}${requestId}${code}${fault},"msg":"request"}\n`
  );
}

/** A field value of a lifecycle line. */
export type LogValue = string | number | boolean | null | readonly LogValue[] | { readonly [key: string]: LogValue | undefined };

/**
 * A lifecycle line of `txmon serve` (serving, shutting down, pruned, stopped…), newline included:
 * the text pino 10 writes for `pino({ base: null, timestamp })[level](fields, msg)` — level (30, info, by default), time,
 * the fields in their order (undefined ones left out), msg — save for strings holding a lone
 * surrogate, which are escaped as `JSON.stringify` does (pino writes them raw, as in
 * {@link formatRequestLine}). txmon writes these few lines itself, so the command needs no logger
 * package (see docs/decisions.md).
 *
 * @example
 * ```ts
 * formatLogLine({ signal: 'SIGTERM' }, 'shutting down', ',"time":"2026-11-22T09:00:00.000Z"');
 * // '{"level":30,"time":"2026-11-22T09:00:00.000Z","signal":"SIGTERM","msg":"shutting down"}\n'
 * ```
 */
export function formatLogLine(fields: Readonly<Record<string, LogValue | undefined>>, msg: string, time: string, level: number = LOG_LEVELS.info): string {
  let line = `{"level":${level}${time}`;
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value === undefined) continue;
    line += `,${JSON.stringify(key)}:${typeof value === 'number' ? numberText(value) : JSON.stringify(value)}`;
  }
  return `${line},"msg":${JSON.stringify(msg)}}\n`;
}

/** A writer that gathers lines and writes them out together. */
export interface BatchedWriter {
  /** Queues a line; it is written by a flush, at the latest when the batch's timer fires. */
  write(line: string): void;
  /** Writes the queued lines now (before a lifecycle line, and before the process exits). */
  flush(): void;
  /** Writes the queued lines now if they are at least `largeBytes` long (called after responses). */
  flushIfLarge(): void;
}

/** Options of {@link createBatchedWriter}. */
export interface BatchedWriterOptions {
  /** Called with the flush when a batch starts (its first line); default a 25 ms timer. */
  readonly schedule?: (flush: () => void) => void;
  /** What {@link BatchedWriter.flushIfLarge} waits for, in UTF-16 code units (default 16,384). */
  readonly largeBytes?: number;
}

/** The default schedule: the batch is written 25 ms after its first line, from a timer. */
function in25ms(fn: () => void): void {
  setTimeout(fn, 25);
}

/**
 * Gathers lines and hands them to `sink` in one `write`: when a batch's timer fires (25 ms after
 * its first line), when {@link BatchedWriter.flushIfLarge} finds 16 KB waiting — `txmon serve`
 * calls it right after each batch of responses (`toNodeListener`'s `afterResponses`) — or on
 * {@link BatchedWriter.flush}. A timer or the hook runs between turns or after the responses, so
 * a log write never delays a finished response, and a loaded server makes one `write(2)` per
 * hundreds of requests: one write per turn still cost ~16 µs, ~2.7 µs per request.
 * A sink that throws loses the lines of that write only; `onError` hears of it, and serving goes
 * on.
 */
export function createBatchedWriter(sink: LineSink, onError: (error: unknown) => void, options: BatchedWriterOptions = {}): BatchedWriter {
  const schedule = options.schedule ?? in25ms;
  const largeBytes = options.largeBytes ?? 16_384;
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending === '') return;
    const text = pending;
    pending = '';
    try {
      sink.write(text);
    } catch (error) {
      onError(error);
    }
  };
  return {
    write(line) {
      pending += line;
      if (!scheduled) {
        scheduled = true;
        schedule(flush);
      }
    },
    flush,
    flushIfLarge() {
      if (pending.length >= largeBytes) flush();
    },
  };
}

/** A {@link LineSink} writing to a file descriptor, and what it still holds. */
export interface FdSink extends LineSink {
  /** Tries to write what is held back; `true` when nothing is left. */
  flush(): boolean;
}

/**
 * Writes text to a file descriptor with `fs.writeSync`, never blocking the event loop: a partial
 * write keeps the rest, and a descriptor that is not ready (`EAGAIN`: a full non-blocking pipe)
 * keeps everything, retried with the next write or 10 ms later. What is held back is bounded
 * (`maxHeldBytes`, default 1 MiB): past it new text is dropped. Any other error (`EPIPE`,
 * `ENOSPC`, `EIO`…) drops the text of that write. Both are reported to `onError`, and nothing
 * is kept for retrying but text waiting on `EAGAIN`.
 */
export function createFdSink(
  fd: number,
  onError: (error: unknown) => void,
  options: { readonly maxHeldBytes?: number; readonly write?: (fd: number, bytes: Uint8Array, offset: number, length: number) => number } = {},
): FdSink {
  const maxHeld = options.maxHeldBytes ?? 1 << 20;
  const write = options.write ?? writeSync;
  let held: Buffer | null = null;
  // The pending retry after EAGAIN: at most one at a time.
  // biome-ignore lint/correctness/noUnusedVariables: read by the ??= below (one timer, not one per failed write)
  let retry: ReturnType<typeof setTimeout> | null = null;
  const push = (): boolean => {
    while (held !== null) {
      let written: number;
      try {
        written = write(fd, held, 0, held.length);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EAGAIN') {
          retry ??= setTimeout(() => {
            retry = null;
            push();
          }, 10).unref();
          return false;
        }
        held = null;
        onError(error);
        return true;
      }
      held = written >= held.length ? null : held.subarray(written);
    }
    return true;
  };
  return {
    write(text) {
      const bytes = Buffer.from(text, 'utf8');
      if (held === null) held = bytes;
      else if (held.length + bytes.length > maxHeld) {
        onError(Object.assign(new Error('the log destination is not taking writes; lines dropped'), { code: 'EBACKLOG' }));
        push();
        return;
      } else held = Buffer.concat([held, bytes]);
      push();
    },
    flush: push,
  };
}
