/**
 * Options of a generation run, their defaults and their checks. A wrong option is a
 * {@link GenerateOptionsError} naming it, which the command turns into a usage error naming its flag.
 */
import { TYPOLOGIES, type Typology } from './types.js';

/** What to generate. Only `users`, `days` and `seed` are required. */
export interface GenerateOptions {
  /** Customers (consumer and business users), ≥ 1; typologies need at least {@link MIN_USERS_WITH_TYPOLOGIES}. */
  readonly users: number;
  /** Days of history, {@link MIN_DAYS} … {@link MAX_DAYS}. */
  readonly days: number;
  /** Any integer 0 … 2^53 − 1: the same seed and options give the same history, byte for byte. */
  readonly seed: number;
  /** First instant of the history, epoch ms at a UTC midnight; default {@link DEFAULT_START} (2026-01-01). */
  readonly start?: number;
  /** Share of the customers that take part in injected schemes, 0 … 0.25; default 0.025 (docs/typologies.md "Rates"). */
  readonly typologyRate?: number;
  /** Fewest schemes of each typology, whatever the rate, 0 … 1000; default 3. */
  readonly minSchemes?: number;
  /** Which typologies to inject; default all of {@link TYPOLOGIES}. Empty: a clean history. */
  readonly typologies?: readonly Typology[];
}

/** {@link GenerateOptions} with every default applied. */
export interface ResolvedGenerateOptions {
  readonly users: number;
  readonly days: number;
  readonly seed: number;
  readonly start: number;
  readonly typologyRate: number;
  readonly minSchemes: number;
  readonly typologies: readonly Typology[];
}

/** Default first instant: 2026-01-01T00:00:00Z. */
export const DEFAULT_START = Date.UTC(2026, 0, 1);
/** Default share of customers in injected schemes. */
export const DEFAULT_TYPOLOGY_RATE = 0.025;
/** Default fewest schemes per typology. */
export const DEFAULT_MIN_SCHEMES = 3;
/** Shortest history: two weeks leave room for a dormancy of a week and the burst after it. */
export const MIN_DAYS = 14;
/** Longest history: ten years. */
export const MAX_DAYS = 3660;
/** Most customers of one run. */
export const MAX_USERS = 10_000_000;
/** Fewest customers when typologies are injected: the largest scheme needs ten accounts of one country. */
export const MIN_USERS_WITH_TYPOLOGIES = 100;

/** A wrong generation option; `option` names it (a key of {@link GenerateOptions}). */
export class GenerateOptionsError extends RangeError {
  /** The option at fault. */
  readonly option: keyof GenerateOptions;
  /** What is wrong with it, without its name (e.g. "must be an integer from 14 to 3660"). */
  readonly detail: string;
  constructor(option: keyof GenerateOptions, detail: string) {
    super(`${option} ${detail}`);
    this.name = 'GenerateOptionsError';
    this.option = option;
    this.detail = detail;
  }
}

function requireInteger(option: keyof GenerateOptions, value: number, min: number, max: number): number {
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new GenerateOptionsError(option, `must be an integer from ${min} to ${max}`);
  return value;
}

/**
 * Applies the defaults and checks every option.
 * @throws GenerateOptionsError naming the first wrong option
 */
export function resolveGenerateOptions(options: GenerateOptions): ResolvedGenerateOptions {
  const typologies = options.typologies ?? TYPOLOGIES;
  for (const t of typologies) if (!TYPOLOGIES.includes(t)) throw new GenerateOptionsError('typologies', `has an unknown typology: ${String(t)}`);
  const minUsers = typologies.length > 0 ? MIN_USERS_WITH_TYPOLOGIES : 1;
  const users = requireInteger('users', options.users, minUsers, MAX_USERS);
  const days = requireInteger('days', options.days, MIN_DAYS, MAX_DAYS);
  const seed = requireInteger('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
  const start = options.start ?? DEFAULT_START;
  if (!Number.isSafeInteger(start) || start % 86_400_000 !== 0) throw new GenerateOptionsError('start', 'must be a UTC midnight in epoch milliseconds');
  // The schemas accept timestamps from 1980 to 2100; the whole history must fit.
  if (start < Date.UTC(1980, 0, 1) || start + days * 86_400_000 > Date.UTC(2100, 0, 1))
    throw new GenerateOptionsError('start', 'must leave the history between 1980 and 2100');
  const typologyRate = options.typologyRate ?? DEFAULT_TYPOLOGY_RATE;
  if (!Number.isFinite(typologyRate) || typologyRate < 0 || typologyRate > 0.25)
    throw new GenerateOptionsError('typologyRate', 'must be a number from 0 to 0.25');
  const minSchemes = requireInteger('minSchemes', options.minSchemes ?? DEFAULT_MIN_SCHEMES, 0, 1000);
  // Kept in the canonical order, without repeats, so that the order flags are given in does not change the output.
  const chosen = TYPOLOGIES.filter((t) => typologies.includes(t));
  return { users, days, seed, start, typologyRate, minSchemes, typologies: chosen };
}
