import { TxmonError } from '../../errors.js';

/**
 * Serialises async work per key within this process: the engine runs the transactions of one user
 * one after the other, so each sees the others in its windows (a split payment cannot slip under
 * a volume rule by arriving in parallel).
 */

/** Runs `fn` while holding every key of `keys`; see {@link createKeyedLock}. */
export type KeyedLock = <T>(keys: readonly string[], fn: () => Promise<T>) => Promise<T>;

/** A caller waiting for a key: granted it, or gone (its wait passed the bound). */
interface Waiter {
  grant: () => void;
  gone: boolean;
}

/**
 * A lock per key. A call takes several keys, acquired in the order given — callers pass them
 * sorted, so two calls never wait for each other in a cycle. Uncontended (the usual case) a key
 * costs no allocation and no microtask hop; a contended caller waits in a FIFO queue, at most
 * `maxWaitMs` in all (then it rejects with `OVERLOADED` and leaves the queue). Keys are released in
 * reverse order, also when `fn` throws.
 *
 * @example
 * ```ts
 * const withLocks = createKeyedLock(10_000);
 * await withLocks(['t:1', 'u:alice'], async () => { ... });
 * ```
 */
export function createKeyedLock(maxWaitMs = Number.POSITIVE_INFINITY): KeyedLock {
  // key → waiters; a held key without waiters maps to the shared empty list (no allocation).
  const NO_WAITERS: Waiter[] = [];
  const queues = new Map<string, Waiter[]>();
  /** Takes `key` when it is free. */
  const tryTake = (key: string): boolean => {
    if (queues.has(key)) return false;
    queues.set(key, NO_WAITERS);
    return true;
  };
  /** Waits in `key`'s queue until it is handed over, or until `deadline`. */
  const waitFor = (key: string, deadline: number): Promise<void> => {
    let queue = queues.get(key) as Waiter[];
    if (queue === NO_WAITERS) {
      queue = [];
      queues.set(key, queue);
    }
    const waiters = queue;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { grant: resolve, gone: false };
      waiters.push(waiter);
      if (deadline === Number.POSITIVE_INFINITY) return;
      const timer = setTimeout(
        () => {
          waiter.gone = true;
          reject(new TxmonError('OVERLOADED', `The calls before this one on its transaction or users took more than ${maxWaitMs} ms; try again`));
        },
        Math.max(0, deadline - Date.now()),
      );
      waiter.grant = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  };
  const release = (key: string): void => {
    const queue = queues.get(key);
    let next: Waiter | undefined;
    if (queue !== undefined && queue !== NO_WAITERS) {
      do next = queue.shift();
      while (next?.gone === true);
    }
    if (next) next.grant();
    else queues.delete(key);
  };
  return async function withLocks<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    let held = 0;
    let deadline = 0;
    try {
      for (; held < keys.length; held++) {
        const key = keys[held] as string;
        if (tryTake(key)) continue;
        // The deadline is set by the first wait: an uncontended call never reads the clock.
        if (deadline === 0) deadline = Date.now() + maxWaitMs;
        await waitFor(key, deadline);
      }
      return await fn();
    } finally {
      for (let i = held - 1; i >= 0; i--) release(keys[i] as string);
    }
  };
}
