/**
 * The request log of `txmon serve` (D-141): one JSON line per request, the same text pino writes
 * for `logger.info(entry, 'request')` with `{ base: null }` and the command's time field, written
 * to the destination in one synchronous write per event-loop turn, right after the turn's
 * responses (D-142).
 */
import { writeSync } from 'node:fs';
import type { RequestLogEntry } from '../http/handler.js';

/** Something lines can be written to ({@link createFdSink}, or a test's collector). */
export interface LineSink {
  write(text: string): unknown;
}

/** pino's number rule: a non-finite number is written as `null`. */
function numberText(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * The log line of one request, newline included: byte for byte what pino 10 writes for
 * `pino({ base: null, timestamp }).info(entry, 'request')` (level 30, time, the entry's fields in
 * their order, `code` only when set, msg). `time` is the `,"time":"…"` fragment pino's
 * `timestamp` option returns.
 *
 * @example
 * ```ts
 * formatRequestLine({ method: 'GET', route: '/rules', status: 200, tenant: 'default', durationMs: 3 }, ',"time":"2026-11-22T09:00:00.000Z"');
 * // '{"level":30,"time":"2026-11-22T09:00:00.000Z","method":"GET","route":"/rules","status":200,"tenant":"default","durationMs":3,"msg":"request"}\n'
 * ```
 */
export function formatRequestLine(entry: RequestLogEntry, time: string): string {
  const code = entry.code === undefined ? '' : `,"code":${JSON.stringify(entry.code)}`;
  return (
    `{"level":30${time},"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)},` +
    `"status":${numberText(entry.status)},"tenant":${JSON.stringify(entry.tenant)},"durationMs":${numberText(entry.durationMs)}${code},"msg":"request"}\n`
  );
}

/** A writer that gathers lines and writes them out together. */
export interface BatchedWriter {
  /** Queues a line; queued lines are written by the next {@link BatchedWriter.flush}, or by the fallback timer. */
  write(line: string): void;
  /** Writes the queued lines now (before a lifecycle line, and before the process exits). */
  flush(): void;
}

/**
 * The fallback schedule: a timer, so the batch is written in a later loop iteration than the check
 * phase where the turn's responses (and, through `toNodeListener`'s `afterResponses`, the batch
 * itself) are written. It only writes lines nothing else has flushed.
 */
function later(fn: () => void): void {
  setTimeout(fn, 0);
}

/**
 * Gathers lines and hands them to `sink` in one `write` when {@link BatchedWriter.flush} is called
 * — `txmon serve` calls it right after each batch of responses (`toNodeListener`'s
 * `afterResponses`, D-142), so a log write never delays a response — or, for lines nothing
 * flushed, from a timer (`schedule`). With a synchronous destination that is one `write(2)` per
 * turn, with no thread-pool hop: a loaded server answers several requests per turn. A sink that
 * throws loses the lines of that write only; `onError` hears of it, and serving goes on.
 */
export function createBatchedWriter(sink: LineSink, onError: (error: unknown) => void, schedule: (fn: () => void) => void = later): BatchedWriter {
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
