/**
 * How much engine work one handler runs at once, and how much may wait: past `maxActive` requests
 * in flight a request waits its turn in a FIFO queue; past `maxQueued` waiting, or after waiting
 * `maxWaitMs`, it is refused at once with `OVERLOADED` (503, `Retry-After`). A request whose client
 * has gone by its turn is not run (`CLIENT_GONE`). The bound keeps a slow store from growing an
 * unbounded backlog of work nobody waits for any more.
 */
import { configurationError, TxmonError } from '../errors.js';

/** Options of {@link createAdmission}. */
export interface Concurrency {
  /** Requests running engine work at once. Default 64. */
  readonly maxActive?: number;
  /** Requests waiting for their turn, past which a request is refused at once. Default 1,024. */
  readonly maxQueued?: number;
  /** Longest wait for a turn before a request is refused. Default 10,000 ms. */
  readonly maxWaitMs?: number;
}

/** The defaults of {@link Concurrency}. */
export const DEFAULT_CONCURRENCY = Object.freeze({ maxActive: 64, maxQueued: 1_024, maxWaitMs: 10_000 });

/** Admission of requests to engine work (see the module comment). */
export interface Admission {
  /** Takes a turn now when one is free (`true`); the caller then calls {@link Admission.leave} once done. */
  tryEnter(): boolean;
  /**
   * Waits for a turn; resolves holding it (call {@link Admission.leave} once done).
   * @throws TxmonError `OVERLOADED` when the queue is full or the wait passes `maxWaitMs`;
   *   `CLIENT_GONE` when `isGone()` says so at its turn (the turn is passed on).
   */
  wait(isGone: () => boolean): Promise<void>;
  /** Gives the turn back (to the first waiting request, if any). */
  leave(): void;
  /** Requests running and waiting now. */
  readonly load: { readonly active: number; readonly queued: number };
}

/** One waiting request: settled once, by its turn or its timeout. */
interface Waiter {
  resolve(): void;
  timer: ReturnType<typeof setTimeout> | null;
  done: boolean;
}

function overloaded(message: string): TxmonError {
  return new TxmonError('OVERLOADED', message);
}

/**
 * The admission of a handler.
 * @throws TxmonError `INVALID_CONFIGURATION` for a bound that is not a positive integer.
 */
export function createAdmission(options: Concurrency = {}): Admission {
  const settings = { ...DEFAULT_CONCURRENCY, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) };
  for (const [name, value] of Object.entries(settings)) {
    if (!(Number.isSafeInteger(value) && (value as number) > 0))
      throw configurationError('createHttpHandler', `concurrency.${name} must be a positive integer`);
  }
  const { maxActive, maxQueued, maxWaitMs } = settings as typeof DEFAULT_CONCURRENCY;
  let active = 0;
  // A FIFO with a moving head: no O(n) shift per turn.
  let queue: Waiter[] = [];
  let head = 0;
  let queued = 0;
  const next = (): Waiter | undefined => {
    while (head < queue.length) {
      const waiter = queue[head++] as Waiter;
      if (head > 1024 && head * 2 > queue.length) {
        queue = queue.slice(head);
        head = 0;
      }
      if (!waiter.done) return waiter;
    }
    return undefined;
  };
  const leave = () => {
    const waiter = next();
    if (waiter === undefined) {
      active--;
      return;
    }
    // The turn passes straight to the waiter: `active` stays as it is.
    waiter.done = true;
    queued--;
    if (waiter.timer !== null) clearTimeout(waiter.timer);
    waiter.resolve();
  };
  return {
    tryEnter() {
      if (active >= maxActive || queued > 0) return false;
      active++;
      return true;
    },
    async wait(isGone) {
      if (queued >= maxQueued) throw overloaded(`The server has ${maxQueued} requests waiting; try again`);
      let timedOut = false;
      await new Promise<void>((resolve) => {
        const waiter: Waiter = { resolve, timer: null, done: false };
        waiter.timer = setTimeout(() => {
          if (waiter.done) return;
          waiter.done = true;
          queued--;
          timedOut = true;
          resolve();
        }, maxWaitMs);
        queue.push(waiter);
        queued++;
      });
      if (timedOut) throw overloaded(`The request waited ${maxWaitMs} ms for its turn; try again`);
      if (isGone()) {
        leave();
        throw new TxmonError('CLIENT_GONE', 'The client closed the connection before its request started');
      }
    },
    leave,
    get load() {
      return { active, queued };
    },
  };
}
