import { createEngine, isTxmonError, type EngineOptions } from '../src/index.js';
import type { TransactionInput } from '../src/engine/types.js';

export type { CommentInput, ListInput, RuleInstanceInput, TransactionEventInput, TransactionInput, UploadInput, UserInput } from '../src/engine/types.js';
export type { RiskLevel } from '../src/domain/index.js';

/** A settable clock. */
export function fixedClock(start = Date.UTC(2025, 0, 15, 12, 0, 0)) {
  let now = start;
  return {
    now: () => now,
    set(t: number) {
      now = t;
    },
    advance(ms: number) {
      now += ms;
    },
  };
}

/** Deterministic ids: `<kind>-1`, `<kind>-2`, … */
export function sequentialIds() {
  const counters = new Map<string, number>();
  return {
    next(kind: string) {
      const n = (counters.get(kind) ?? 0) + 1;
      counters.set(kind, n);
      return `${kind}-${n}`;
    },
  };
}

/** An engine with a fixed clock and sequential ids. */
export function testEngine(options: EngineOptions = {}) {
  const clock = fixedClock();
  const engine = createEngine({ clock, ids: sequentialIds(), urlSigningSecret: new Uint8Array(32).fill(7), ...options });
  return { engine, clock };
}

export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
export const SECOND = 1000;
export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

let seq = 0;
/**
 * A valid transaction with overrides. Typed as the engine's input; the overrides are not checked
 * (tests override with wrong values on purpose), so a wrong one fails at run time, as it should.
 */
export function tx(overrides: Record<string, unknown> = {}): TransactionInput {
  seq += 1;
  return {
    type: 'TRANSFER',
    transactionId: `t-${seq}`,
    timestamp: T0,
    originUserId: 'alice',
    destinationUserId: 'bob',
    originAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'DE' },
    destinationAmountDetails: { transactionAmount: 100, transactionCurrency: 'EUR', country: 'FR' },
    ...overrides,
  } as TransactionInput;
}

/** Runs `fn` and returns the TxmonError it throws (fails the test when it does not throw one). */
export async function errorOf(fn: () => Promise<unknown>) {
  try {
    await fn();
  } catch (e) {
    if (isTxmonError(e)) return e;
    throw e;
  }
  throw new Error('expected a TxmonError, but the call succeeded');
}
