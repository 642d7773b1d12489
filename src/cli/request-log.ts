/**
 * The request log of `txmon serve` (D-141): one JSON line per request, the same text pino writes
 * for `logger.info(entry, 'request')` with `{ base: null }` and the command's time field, written
 * to the destination in one synchronous write per event-loop turn.
 */
import type { RequestLogEntry } from '../http/handler.js';

/** Something lines can be written to (pino's `SonicBoom` destination, or a test's collector). */
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
  /** Queues a line; the queued lines are written at the end of this event-loop turn. */
  write(line: string): void;
  /** Writes the queued lines now (before a lifecycle line, and before the process exits). */
  flush(): void;
}

/**
 * By default a batch is written in the check phase after the next one: after the responses of the
 * turn, which `toNodeListener` sends from a `setImmediate` callback of the same check phase
 * (D-142), so a log write never delays a response; and before the server waits for more work.
 */
function afterResponses(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/**
 * Gathers lines written during one event-loop turn and hands them to `sink` in one `write`, once
 * the turn's responses are out (or when `schedule` says). With a synchronous destination that is
 * one `write(2)` per turn, with no thread-pool hop and no buffer left behind once the turn is over:
 * a loaded server answers several requests per turn. A failing sink loses the lines of that write
 * only; `onError` hears of it, and serving goes on.
 */
export function createBatchedWriter(sink: LineSink, onError: (error: unknown) => void, schedule: (fn: () => void) => void = afterResponses): BatchedWriter {
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
