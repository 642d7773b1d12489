/**
 * Serialises async work per key within this process: the engine runs the transactions of one user
 * one after the other, so each sees the others in its windows (a split payment cannot slip under
 * a volume rule by arriving in parallel).
 */

/** Runs `fn` while holding every key of `keys`; see {@link createKeyedLock}. */
export type KeyedLock = <T>(keys: readonly string[], fn: () => Promise<T>) => Promise<T>;

/**
 * A lock per key. A call takes several keys, acquired in the order given — callers pass them
 * sorted, so two calls never wait for each other in a cycle. Uncontended (the usual case) a key
 * costs no allocation and no microtask hop; a contended caller waits in a FIFO queue. Keys are
 * released in reverse order, also when `fn` throws.
 *
 * @example
 * ```ts
 * const withLocks = createKeyedLock();
 * await withLocks(['t:1', 'u:alice'], async () => { ... });
 * ```
 */
export function createKeyedLock(): KeyedLock {
  // key → waiters; a held key without waiters maps to the shared empty list (no allocation).
  const NO_WAITERS: (() => void)[] = [];
  const queues = new Map<string, (() => void)[]>();
  const acquire = (key: string): Promise<void> | undefined => {
    let queue = queues.get(key);
    if (queue === undefined) {
      queues.set(key, NO_WAITERS);
      return undefined;
    }
    if (queue === NO_WAITERS) {
      queue = [];
      queues.set(key, queue);
    }
    const waiters = queue;
    return new Promise<void>((resolve) => waiters.push(resolve));
  };
  const release = (key: string): void => {
    const queue = queues.get(key);
    const next = queue === undefined || queue === NO_WAITERS ? undefined : queue.shift();
    if (next) next();
    else queues.delete(key);
  };
  return async function withLocks<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    let held = 0;
    try {
      for (; held < keys.length; held++) {
        const wait = acquire(keys[held] as string);
        if (wait) await wait;
      }
      return await fn();
    } finally {
      for (let i = held - 1; i >= 0; i--) release(keys[i] as string);
    }
  };
}
