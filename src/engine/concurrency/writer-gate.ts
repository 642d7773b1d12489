/**
 * A readers/writer gate: transactions and events are readers (any number at once); a rule-instance
 * write is the writer. A writer waits until the readers in flight finish and holds new ones back
 * meanwhile, because it may fill a new aggregate series from the stored transactions — a
 * transaction evaluated with the old set of series during the fill would be missing from it.
 */

/** See {@link createWriterGate}. */
export interface WriterGate {
  /** Runs `fn` as a reader: waits while a writer holds the gate, then runs beside other readers. */
  shared<T>(fn: () => Promise<T>): Promise<T>;
  /** Runs `fn` as the writer: alone, after every reader in flight has finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
}

/**
 * Creates a gate. Writers are served one at a time, in no particular order; a waiting writer is
 * re-checked after every wake-up, and enters in the same turn it finds the gate free, so two
 * writers never both pass.
 */
export function createWriterGate(): WriterGate {
  let readers = 0;
  let held: Promise<void> | null = null;
  let onDrained: (() => void) | null = null;

  const leave = (): void => {
    readers -= 1;
    if (readers === 0 && onDrained) onDrained();
  };

  return {
    async shared(fn) {
      while (held) await held;
      readers += 1;
      try {
        return await fn();
      } finally {
        leave();
      }
    },
    async exclusive(fn) {
      while (held) await held;
      let release!: () => void;
      held = new Promise<void>((resolve) => {
        release = resolve;
      });
      try {
        while (readers > 0) {
          await new Promise<void>((resolve) => {
            onDrained = resolve;
          });
        }
        onDrained = null;
        return await fn();
      } finally {
        held = null;
        release();
      }
    },
  };
}
