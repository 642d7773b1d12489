/**
 * What one tenant's clients can make an engine hold or compute. Each limit bounds a cost a client
 * controls — memory per stored record, work per transaction, the number of things evaluated on
 * every transaction — so that no request can freeze or exhaust a process that serves others.
 * Every refusal is a `LIMIT_EXCEEDED` (400) whose message names the limit.
 */
import { TxmonError, limitExceeded } from '../errors.js';

/** Limits of one engine (one tenant); see {@link DEFAULT_ENGINE_LIMITS} for the defaults. */
export interface EngineLimits {
  /**
   * Largest transaction, as a size close to its JSON text's length (every string's and key's
   * characters plus one per value): the request, and the transaction after every event.
   */
  readonly maxTransactionSize: number;
  /** Largest transaction event, counted the same way. */
  readonly maxEventSize: number;
  /** Most events one transaction can have (a late event re-folds them all). */
  readonly maxEventsPerTransaction: number;
  /** Most rule instances, active or not. */
  readonly maxRuleInstances: number;
  /** Most custom-logic instances among them (each evaluates its logic on every transaction). */
  readonly maxCustomLogicInstances: number;
  /** Largest rule-instance request, counted as for transactions (its parameters, filters and logic). */
  readonly maxRuleInstanceSize: number;
  /** Most items of any one list inside a rule instance's parameters (keywords, countries, names …). */
  readonly maxParameterItems: number;
  /**
   * Work budget of one evaluation of a custom rule's logic (json-logic work units: one per operator
   * evaluated and per array element visited, plus the length of arrays and strings built or
   * scanned). Past it the evaluation stops and counts as not hit.
   */
  readonly maxLogicWork: number;
  /** Most lists (blacklists and whitelists). */
  readonly maxLists: number;
  /** Most items of one list. */
  readonly maxListItems: number;
  /**
   * Longest a transaction or event waits, in this process, for the calls before it on the same
   * transaction or users (they run one after the other): past it the call is refused with
   * `OVERLOADED` (503, `Retry-After`) and nothing is written. A merchant paid by every client at
   * once is such a user; the bound keeps its queue from growing without end when the store slows.
   */
  readonly maxLockWaitMs: number;
}

/**
 * The defaults: generous for real payment traffic (a transaction is a few kilobytes, a lifecycle
 * has a handful of events), small enough that the worst input a client can send costs
 * milliseconds and the worst configuration a tenant can store costs megabytes.
 */
export const DEFAULT_ENGINE_LIMITS: EngineLimits = Object.freeze({
  maxTransactionSize: 65_536,
  maxEventSize: 65_536,
  maxEventsPerTransaction: 1_000,
  maxRuleInstances: 500,
  maxCustomLogicInstances: 50,
  maxRuleInstanceSize: 262_144,
  maxParameterItems: 10_000,
  maxLogicWork: 50_000,
  maxLists: 1_000,
  maxListItems: 100_000,
  maxLockWaitMs: 10_000,
});

/**
 * The defaults with `overrides` applied, each checked to be a positive safe integer.
 * @throws TxmonError `INVALID_CONFIGURATION` for an unknown name or a value that is not a positive integer.
 */
export function resolveEngineLimits(overrides: Partial<EngineLimits> | undefined): EngineLimits {
  if (overrides === undefined) return DEFAULT_ENGINE_LIMITS;
  const limits: Record<string, number> = { ...DEFAULT_ENGINE_LIMITS };
  for (const [name, value] of Object.entries(overrides)) {
    if (!(name in DEFAULT_ENGINE_LIMITS)) throw new TxmonError('INVALID_CONFIGURATION', `createEngine: limits.${name} is not a known limit`);
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new TxmonError('INVALID_CONFIGURATION', `createEngine: limits.${name} must be a positive integer`);
    }
    limits[name] = value as number;
  }
  return Object.freeze(limits) as unknown as EngineLimits;
}

/**
 * Refuses a value of `size` (as `measureJsonSize` counts it) above limit `name`: `LIMIT_EXCEEDED` at the
 * body (`path` `''`), saying what was too large.
 */
export function assertSizeWithin(size: number, max: number, name: keyof EngineLimits, what: string): void {
  if (size > max) throw limitExceeded(name, max, `the size of ${what}`);
}
